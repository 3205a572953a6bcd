// Reads a registry extract (CSV with a header row, or JSON Lines) into records, refusing the whole file on the
// first bad row so that a half-imported extract never mixes with the previous one.
import { parse } from 'csv-parse/sync';
import { z } from 'zod';
import { COMPANY_TYPES, IDENTITY_KINDS, type CompanyRegistryRecord, type CompanyType, type IdentityRecord } from './types.js';

const optional = z
  .string()
  .trim()
  .nullish()
  .transform((v) => (v ? v : null));
const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date (YYYY-MM-DD)');

const IdentityRow = z.object({
  kind: z.enum(IDENTITY_KINDS),
  number: z.string().trim().min(1),
  firstName: optional,
  middleName: optional,
  lastName: optional,
  name: optional,
  dob: date.nullish().or(z.literal('').transform(() => null)),
  gender: optional,
  registrationNumber: optional,
});

export const AffiliateSchema = z.object({
  surname: z.string(),
  firstname: z.string(),
  othername: z.string().nullish(),
  gender: z.string(),
  email: z.string(),
  phoneNumber: z.string(),
  dateOfBirth: z.string(),
  dateOfAppointment: z.string(),
  nationality: z.string(),
  address: z.string(),
  occupation: z.string(),
  affiliateType: z.string(),
  idType: z.string(),
});

const CompanyRow = z.object({
  companyType: z.enum(COMPANY_TYPES),
  registrationNumber: z.string().trim().min(1),
  businessName: z.string().trim().min(1),
  status: z.string().trim().min(1),
  classification: optional,
  registrationDate: date,
  headOfficeAddress: optional,
  branchAddress: optional,
  state: z.string().default(''),
  city: z.string().default(''),
  lga: z.string().default(''),
  companyEmail: optional,
  entityType: optional,
  statusMore: optional,
  /** In CSV: a JSON array in one cell. */
  affiliatesData: z
    .union([
      z.array(AffiliateSchema),
      z.string().transform((s, ctx) => {
        try {
          return z.array(AffiliateSchema).parse(s.trim() === '' ? [] : JSON.parse(s));
        } catch {
          ctx.addIssue({ code: 'custom', message: 'must be a JSON array of affiliates' });
          return z.NEVER;
        }
      }),
    ])
    .default([]),
});

/** The record as the registry lookup answers it (compliance-service-interface.md, CompanyRegistryRecord). */
export const CompanyRegistryRecordSchema = z.object({
  registrationNumber: z.string(),
  businessName: z.string(),
  status: z.string(),
  classification: z.string().nullish(),
  registrationDate: z.string(),
  headOfficeAddress: z.string().nullish(),
  branchAddress: z.string().nullish(),
  state: z.string(),
  city: z.string(),
  lga: z.string(),
  companyEmail: z.string().nullish(),
  entityType: z.string().nullish(),
  statusMore: z.string().nullish(),
  affiliates: z.number().int(),
  affiliatesData: z.array(AffiliateSchema),
});

export type RegistryKind = 'identity' | 'company';

function rows(text: string, format: 'csv' | 'jsonl'): Record<string, unknown>[] {
  if (format === 'csv') return parse(text, { columns: true, skip_empty_lines: true, trim: true, bom: true }) as Record<string, unknown>[];
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line, i) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`line ${i + 1}: not valid JSON`);
      }
    });
}

function parseRows<T>(text: string, format: 'csv' | 'jsonl', schema: z.ZodType<T>): T[] {
  return rows(text, format).map((row, i) => {
    const result = schema.safeParse(row);
    if (!result.success) {
      const issue = result.error.issues[0]!;
      throw new Error(`record ${i + 1}: ${issue.path.join('.') || 'row'} ${issue.message}`);
    }
    return result.data;
  });
}

export function parseIdentityExtract(text: string, format: 'csv' | 'jsonl'): IdentityRecord[] {
  return parseRows(text, format, IdentityRow);
}

export function parseCompanyExtract(text: string, format: 'csv' | 'jsonl'): { type: CompanyType; record: CompanyRegistryRecord }[] {
  return parseRows(text, format, CompanyRow).map(({ companyType, affiliatesData, ...rest }) => ({
    type: companyType,
    record: { ...rest, affiliates: affiliatesData.length, affiliatesData },
  }));
}

export const formatOf = (path: string): 'csv' | 'jsonl' => (/\.jsonl?$/i.test(path) ? 'jsonl' : 'csv');
