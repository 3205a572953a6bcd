// The customer as the interface sends it on creation (compliance-service-interface.md, "Customer").
// Which fields are mandatory is not shown there: only `type` and `uniqueId` are required here, every other
// field is optional but type-checked, and unknown fields are refused rather than silently dropped.
// Timestamps are kept as the interface gives them, UTC with milliseconds, whatever offset they were sent with.
// Dates that name a day (birth, incorporation, a document's issue and expiry) keep the day as written: converting
// 1990-01-01T00:00:00+01:00 to UTC would make the customer a day older.
import { z } from 'zod';

const text = z.string().trim().max(2000);
const timestamp = z.iso.datetime({ offset: true }).transform((at) => new Date(at).toISOString());
const day = z.iso.datetime({ offset: true }).transform((at) => `${at.slice(0, 10)}T00:00:00.000Z`);
// Documents and web sites are fetched and shown to reviewers: a javascript: or file: address is refused.
const url = z.url({ protocol: /^https?$/ });

/** How deep free-form JSON may nest: 5,000 levels of `metadata` overflowed the stack of the event's serialisation. */
const MAX_FREE_FORM_DEPTH = 32;

/** The nesting depth of a JSON value, found without recursion (a recursive walk is what overflowed). */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const [v, depth] = next;
    if (v === null || typeof v !== 'object') continue;
    if (depth > MAX_FREE_FORM_DEPTH) return depth;
    deepest = Math.max(deepest, depth);
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** Free-form JSON (metadata, PEP details, the parent company): anything, within a nesting depth. */
const freeForm = <T extends z.ZodType>(schema: T) =>
  schema.refine((v) => depthOf(v) <= MAX_FREE_FORM_DEPTH, `must not nest more than ${MAX_FREE_FORM_DEPTH} levels`);
const country = z.string().trim().max(64);
const money = z.number().finite();

export const AccountSchema = z.strictObject({
  accountNumber: z.string().trim().min(1).max(64),
  accountType: text.optional(),
  accountCurrency: text.optional(),
  purposeOfAccount: text.optional(),
  openingDate: timestamp.optional(),
  closingDate: timestamp.nullish(),
  accountStatus: text.optional(),
  averageBalance: money.optional(),
  overdraftLimit: money.nullish(),
  dailyLimit: money.nullish(),
  isPrimaryAccount: z.boolean().optional(),
});

export const KycDocumentSchema = z.strictObject({
  type: text,
  documentNumber: text.nullish(),
  issuingCountry: country.nullish(),
  issuingAuthority: text.nullish(),
  issueDate: day.nullish(),
  expiryDate: day.nullish(),
  fileUrl: url.nullish(),
  status: text.optional(),
  verifiedAt: timestamp.optional(),
  source: text.optional(),
  personUniqueId: text.optional(),
  personRole: text.optional(),
});

const personCommon = {
  /** Assigned by the service when absent; sent back on updates to keep a person's checks and confirmations. */
  uniqueId: z.string().trim().min(1).max(128).optional(),
  firstName: text.optional(),
  lastName: text.optional(),
  middleName: text.optional(),
  dob: day.optional(),
  nationality: country.optional(),
  identificationType: text.optional(),
  identificationNumber: text.optional(),
  isPep: z.boolean().optional(),
  isSanctioned: z.boolean().optional(),
};

export const PersonSchema = z.strictObject({
  ...personCommon,
  gender: text.optional(),
  phone: text.optional(),
  email: text.optional(),
  address: text.optional(),
});

export const OwnerSchema = z.strictObject({ ...personCommon, ownershipPercentage: z.number().min(0).max(100).optional() });

const common = {
  uniqueId: z.string().trim().min(1).max(128),
  externalId: text.optional(),
  status: text.optional(),
  customerSegment: text.optional(),
  riskClassification: text.optional(),
  kycLevel: text.optional(),
  channel: text.optional(),
  source: text.optional(),
  isSanctioned: z.boolean().optional(),
  isPep: z.boolean().optional(),
  watchlist: z.boolean().optional(),
  lastReviewDate: timestamp.optional(),
  nextReviewDate: timestamp.optional(),
  lastCheck: timestamp.optional(),
  phone: text.optional(),
  sourceOfFunds: text.optional(),
  bankCode: text.optional(),
  bankName: text.optional(),
  bankCountry: country.optional(),
  relationshipStartDate: timestamp.optional(),
  accounts: z
    .array(AccountSchema)
    .max(500)
    .superRefine((accounts, ctx) => {
      const first = new Map<string, number>();
      accounts.forEach(({ accountNumber }, i) => {
        const earlier = first.get(accountNumber);
        if (earlier === undefined) first.set(accountNumber, i);
        else ctx.addIssue({ code: 'custom', path: [i, 'accountNumber'], message: `${accountNumber} is already accounts[${earlier}]` });
      });
    })
    .optional(),
  kycDocuments: z.array(KycDocumentSchema).max(200).optional(),
  metadata: freeForm(z.record(z.string(), z.unknown())).optional(),
};

const individualFields = {
  ...common,
  type: z.literal('individual'),
  title: text.optional(),
  firstName: text.optional(),
  lastName: text.optional(),
  middleName: text.optional(),
  dob: day.optional(),
  placeOfBirth: text.optional(),
  countryOfBirth: country.optional(),
  countryOfResidence: country.optional(),
  residencyStatus: text.optional(),
  maritalStatus: text.optional(),
  religion: text.optional(),
  educationLevel: text.optional(),
  stateOfOrigin: text.optional(),
  lgaOfOrigin: text.optional(),
  nationality: country.optional(),
  gender: text.optional(),
  isDeceased: z.boolean().optional(),
  biometricVerified: z.boolean().optional(),
  alternatePhone: text.optional(),
  email: text.optional(),
  address: text.optional(),
  residentialAddress: text.optional(),
  mailingAddress: text.optional(),
  proofOfAddressType: text.optional(),
  proofOfAddress: url.optional(),
  bvnNumber: text.optional(),
  ninNumber: text.optional(),
  passportNumber: text.optional(),
  driversLicenseNumber: text.optional(),
  votersCardNumber: text.optional(),
  taxId: text.optional(),
  taxResidency: text.optional(),
  occupation: text.optional(),
  employmentStatus: text.optional(),
  employerName: text.optional(),
  employerAddress: text.optional(),
  monthlyIncome: money.optional(),
  annualIncome: money.optional(),
  netWorth: money.optional(),
  sourceOfWealth: text.optional(),
  mothersMaidenName: text.optional(),
  politicalAffiliation: z.boolean().optional(),
  politicalPosition: z.boolean().optional(),
  politicalAffiliationRelationship: text.nullish(),
  politicalPositionDescription: text.nullish(),
  pepDetails: freeForm(z.unknown()).optional(),
  sortCode: text.optional(),
  iban: text.nullish(),
};

const corporateFields = {
  ...common,
  type: z.literal('corporate'),
  businessName: text.optional(),
  businessType: text.optional(),
  industryType: text.optional(),
  natureOfBusiness: text.optional(),
  registrationNumber: text.optional(),
  taxIdentificationNumber: text.optional(),
  incorporationDate: day.optional(),
  countryOfIncorporation: country.optional(),
  stateOfIncorporation: text.optional(),
  website: url.optional(),
  numberOfEmployees: z.number().int().min(0).optional(),
  businessEmail: text.optional(),
  headOfficeAddress: text.optional(),
  annualRevenue: money.optional(),
  annualTurnover: money.optional(),
  authorizedCapital: money.optional(),
  paidUpCapital: money.optional(),
  parentCompany: freeForm(z.unknown()).optional(),
  regulatoryLicenses: z.array(text).max(100).optional(),
  directors: z.array(PersonSchema).max(200).optional(),
  signatories: z.array(PersonSchema).max(200).optional(),
  ultimateBeneficialOwners: z.array(OwnerSchema).max(200).optional(),
};

export const IndividualSchema = z.strictObject(individualFields);
export const CorporateSchema = z.strictObject(corporateFields);
export const CustomerInputSchema = z.discriminatedUnion('type', [IndividualSchema, CorporateSchema]);

/** An update: any creation field but `type` and `uniqueId`, which identify the customer and never change. */
export const IndividualPatchSchema = IndividualSchema.omit({ type: true, uniqueId: true }).partial();
export const CorporatePatchSchema = CorporateSchema.omit({ type: true, uniqueId: true }).partial();

export type Account = z.infer<typeof AccountSchema>;
export type Person = z.infer<typeof PersonSchema>;
export type Owner = z.infer<typeof OwnerSchema>;
export type IndividualInput = z.infer<typeof IndividualSchema>;
export type CorporateInput = z.infer<typeof CorporateSchema>;
export type CustomerInput = z.infer<typeof CustomerInputSchema>;
export type CustomerPatch = z.infer<typeof IndividualPatchSchema> | z.infer<typeof CorporatePatchSchema>;
export type CustomerType = CustomerInput['type'];
