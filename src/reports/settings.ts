import { z } from 'zod';
import { DEFAULT_THRESHOLDS } from './threshold.js';

const name = z.string().trim().min(1).max(100);
const amount = z.string().regex(/^\d{1,16}(\.\d{1,13})?$/, 'must be a decimal amount such as "5000000" or "5000000.50"');

/** A business's goAML settings as it sends them: what it leaves out takes the NFIU-oriented default. */
export const ReportingSettingsSchema = z.strictObject({
  fiu: z.string().min(1).max(64).default('nfiu'),
  rentityId: z.number().int().min(1).max(2_147_483_647),
  branch: z.string().trim().min(1).max(255),
  reportingPerson: z.strictObject({
    firstName: name,
    lastName: name,
    email: z.email().max(255).optional(),
    phone: z.string().trim().min(1).max(50).optional(),
    occupation: z.string().trim().min(1).max(255).optional(),
  }),
  institution: z.strictObject({
    name: z.string().trim().min(1).max(255),
    code: z.string().trim().min(1).max(50),
    nonBank: z.boolean().default(false),
    country: z
      .string()
      .regex(/^[A-Z]{2}$/, 'must be an ISO 3166 alpha-2 code')
      .default('NG'),
  }),
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code')
    .default('NGN'),
  thresholds: z
    .strictObject({ individual: amount.default(DEFAULT_THRESHOLDS.individual), corporate: amount.default(DEFAULT_THRESHOLDS.corporate) })
    .default({ ...DEFAULT_THRESHOLDS }),
  utcOffsetMinutes: z.number().int().min(-720).max(840).default(60),
});
export type ReportingSettingsInput = z.input<typeof ReportingSettingsSchema>;
