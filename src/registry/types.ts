// Reference data the due-diligence checks compare a customer with. Not events: a registry extract is replaced
// wholesale by its publisher, and it is nobody's decision that the log should explain.

export const IDENTITY_KINDS = ['bvn', 'nin', 'voters_card', 'passport', 'drivers_licence', 'tin'] as const;
export type IdentityKind = (typeof IDENTITY_KINDS)[number];

export const COMPANY_TYPES = ['RC', 'BN', 'IT'] as const;
export type CompanyType = (typeof COMPANY_TYPES)[number];

/** One identity document as the issuing registry knows it. Persons carry names, dob and gender; a tin row may be a company's. */
export interface IdentityRecord {
  kind: IdentityKind;
  number: string;
  firstName?: string | null;
  middleName?: string | null;
  lastName?: string | null;
  /** Company name, for a tin issued to a business. */
  name?: string | null;
  /** YYYY-MM-DD. */
  dob?: string | null;
  gender?: string | null;
  /** The company registration number a tin is linked to. */
  registrationNumber?: string | null;
}

export interface Affiliate {
  surname: string;
  firstname: string;
  othername?: string | null;
  gender: string;
  email: string;
  phoneNumber: string;
  dateOfBirth: string;
  dateOfAppointment: string;
  nationality: string;
  address: string;
  occupation: string;
  affiliateType: string;
  idType: string;
}

/** compliance-service-interface.md, "CompanyRegistryRecord". */
export interface CompanyRegistryRecord {
  registrationNumber: string;
  businessName: string;
  status: string;
  classification?: string | null;
  registrationDate: string;
  headOfficeAddress?: string | null;
  branchAddress?: string | null;
  state: string;
  city: string;
  lga: string;
  companyEmail?: string | null;
  entityType?: string | null;
  statusMore?: string | null;
  affiliates: number;
  affiliatesData: Affiliate[];
}

export interface IdentityProvider {
  /** undefined when the registry holds no such document: a failed check, never an error. */
  identity(kind: IdentityKind, number: string): Promise<IdentityRecord | undefined>;
}

export interface CompanyProvider {
  company(type: CompanyType, registrationNumber: string): Promise<CompanyRegistryRecord | undefined>;
}

export type RegistryProvider = IdentityProvider & CompanyProvider;

/** "RC 1234567", "rc1234567" and "1234567" all name company RC 1234567. */
export function normaliseRegistrationNumber(value: string): string {
  return value
    .replace(/^\s*(RC|BN|IT)\s*/i, '')
    .replace(/\s+/g, '')
    .toUpperCase();
}
