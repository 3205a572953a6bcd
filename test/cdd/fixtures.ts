import { syntheticCompanies, syntheticPeople } from '../../src/registry/index.js';

/** A person of the synthetic registry sample, so identity checks find them. */
export const person = syntheticPeople()[0]!;
export const company = syntheticCompanies().find((c) => c.type === 'RC')!;

export function individual(uniqueId: string, overrides: Record<string, unknown> = {}) {
  return {
    uniqueId,
    externalId: `ext-${uniqueId}`,
    type: 'individual',
    status: 'active',
    customerSegment: 'retail',
    kycLevel: 'tier_2',
    channel: 'branch',
    source: 'api',
    isPep: false,
    isSanctioned: false,
    firstName: person.firstName,
    middleName: person.middleName || undefined,
    lastName: person.lastName,
    dob: `${person.dob}T00:00:00.000Z`,
    gender: person.gender,
    nationality: 'NG',
    countryOfResidence: 'NG',
    occupation: 'teacher',
    monthlyIncome: 250000,
    bvnNumber: person.bvn,
    ninNumber: person.nin,
    votersCardNumber: person.votersCard,
    relationshipStartDate: '2020-03-01T00:00:00.000Z',
    accounts: [
      {
        accountNumber: `01${uniqueId.replace(/\D/g, '').padStart(8, '0')}`,
        accountType: 'savings',
        accountCurrency: 'NGN',
        purposeOfAccount: 'salary',
        openingDate: '2020-03-01T00:00:00.000Z',
        accountStatus: 'active',
        averageBalance: 120000.5,
        isPrimaryAccount: true,
      },
    ],
    kycDocuments: [{ type: 'bvn', documentNumber: person.bvn, status: 'verified', verifiedAt: '2020-03-01T00:00:00.000Z' }],
    metadata: { onboardingBranch: 'Ikeja', preferredLanguage: 'en', pushNotificationsEnabled: true, tier: 2 },
    ...overrides,
  };
}

const director = syntheticPeople()[1]!;
const signatory = syntheticPeople()[2]!;

export function corporate(uniqueId: string, overrides: Record<string, unknown> = {}) {
  return {
    uniqueId,
    type: 'corporate',
    status: 'active',
    customerSegment: 'sme',
    channel: 'branch',
    businessName: company.record.businessName,
    businessType: 'limited_liability',
    industryType: 'logistics',
    natureOfBusiness: 'haulage',
    registrationNumber: `RC${company.record.registrationNumber}`,
    taxIdentificationNumber: company.tin,
    incorporationDate: `${company.record.registrationDate}T00:00:00.000Z`,
    countryOfIncorporation: 'NG',
    website: 'https://example.com',
    numberOfEmployees: 40,
    annualRevenue: 50_000_000,
    annualTurnover: 60_000_000,
    regulatoryLicenses: ['NCC-123'],
    relationshipStartDate: '2021-01-01T00:00:00.000Z',
    accounts: [
      {
        accountNumber: `02${uniqueId.replace(/\D/g, '').padStart(8, '0')}`,
        accountType: 'current',
        accountCurrency: 'NGN',
        averageBalance: 1_000_000,
      },
    ],
    directors: [
      {
        firstName: director.firstName,
        lastName: director.lastName,
        dob: `${director.dob}T00:00:00.000Z`,
        gender: director.gender,
        nationality: 'NG',
        identificationType: 'bvn',
        identificationNumber: director.bvn,
        isPep: false,
        isSanctioned: false,
      },
    ],
    signatories: [
      {
        firstName: signatory.firstName,
        lastName: signatory.lastName,
        dob: `${signatory.dob}T00:00:00.000Z`,
        gender: signatory.gender,
        identificationType: 'bvn',
        identificationNumber: signatory.bvn,
      },
    ],
    ultimateBeneficialOwners: [{ firstName: director.firstName, lastName: director.lastName, ownershipPercentage: 60, nationality: 'NG' }],
    metadata: { relationshipManager: 'Ada', cacDocumentUrl: 'https://files.example/cac.pdf' },
    ...overrides,
  };
}

/** On the OFAC SDN list (bundled): "AL ZAWAHIRI, Dr. Ayman", DOB 19 Jun 1951, Egypt. */
export const sanctioned = {
  firstName: 'Ayman',
  lastName: 'Al Zawahiri',
  middleName: undefined,
  dob: '1951-06-19T00:00:00.000Z',
  gender: 'male',
  nationality: 'EG',
  countryOfResidence: 'EG',
  bvnNumber: undefined,
  ninNumber: undefined,
  votersCardNumber: undefined,
};
