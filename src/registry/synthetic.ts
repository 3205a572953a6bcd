// A SYNTHETIC registry sample, so that a fresh install can run every check end to end. Every person and company
// here is invented by a seeded generator: none is a real Nigerian identity or company. Replace it with a real
// extract (`npm run cli -- registry import`) or an HTTP provider in production.
import type { CompanyRegistryRecord, IdentityRecord } from './types.js';
import { seededRandom } from '../random.js';

const FIRST_MALE = [
  'Chinedu',
  'Emeka',
  'Tunde',
  'Ibrahim',
  'Segun',
  'Musa',
  'Obinna',
  'Yakubu',
  'Kelechi',
  'Babajide',
  'Uche',
  'Abdullahi',
];
const FIRST_FEMALE = ['Ngozi', 'Amina', 'Funke', 'Chioma', 'Aisha', 'Yetunde', 'Ifeoma', 'Zainab', 'Adaeze', 'Bukola', 'Halima', 'Nneka'];
const SURNAMES = [
  'Okafor',
  'Adeyemi',
  'Bello',
  'Eze',
  'Okonkwo',
  'Abubakar',
  'Balogun',
  'Nwosu',
  'Ogunleye',
  'Danjuma',
  'Obi',
  'Lawal',
  'Uzor',
  'Ajayi',
];
const WORDS = ['Sahel', 'Lagoon', 'Niger', 'Harmattan', 'Zuma', 'Olumo', 'Benue', 'Kainji', 'Obudu', 'Jos', 'Idanre', 'Yankari'];
const TRADES = ['Logistics', 'Agro Allied', 'Ventures', 'Technologies', 'Foods', 'Energy', 'Properties', 'Pharma'];
const STATES: [string, string, string][] = [
  ['LAGOS', 'IKEJA', 'IKEJA'],
  ['FCT', 'ABUJA', 'ABUJA MUNICIPAL'],
  ['RIVERS', 'PORT HARCOURT', 'OBIO/AKPOR'],
  ['KANO', 'KANO', 'NASSARAWA'],
  ['OYO', 'IBADAN', 'IBADAN NORTH'],
];

const pad = (n: number, width: number) => String(n).padStart(width, '0');

export interface SyntheticPerson {
  firstName: string;
  middleName: string;
  lastName: string;
  dob: string;
  gender: 'male' | 'female';
  bvn: string;
  nin: string;
  votersCard: string;
  passport: string;
  driversLicence: string;
}

export function syntheticPeople(count = 200): SyntheticPerson[] {
  const next = seededRandom(20240601);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  return Array.from({ length: count }, (_, i) => {
    const gender = next() < 0.5 ? 'male' : 'female';
    const first = pick(gender === 'male' ? FIRST_MALE : FIRST_FEMALE);
    const middle = pick(gender === 'male' ? FIRST_MALE : FIRST_FEMALE);
    const year = 1955 + Math.floor(next() * 50);
    const dob = `${year}-${pad(1 + Math.floor(next() * 12), 2)}-${pad(1 + Math.floor(next() * 28), 2)}`;
    return {
      firstName: first,
      middleName: middle === first ? '' : middle,
      lastName: pick(SURNAMES),
      dob,
      gender,
      bvn: `22${pad(100000000 + i * 7919, 9)}`,
      nin: `7${pad(1000000000 + i * 104729, 10)}`,
      votersCard: `90F5B${pad(1000 + i, 4)}${pad(Math.floor(next() * 1e9), 9)}`,
      passport: `A${pad(10000000 + i * 131, 8)}`,
      driversLicence: `LAG${pad(10000 + i, 5)}AA${pad(Math.floor(next() * 100), 2)}`,
    };
  });
}

export function syntheticIdentities(people = syntheticPeople()): IdentityRecord[] {
  return people.flatMap((p) => {
    const base = { firstName: p.firstName, middleName: p.middleName || null, lastName: p.lastName, dob: p.dob, gender: p.gender };
    return [
      { kind: 'bvn', number: p.bvn, ...base },
      { kind: 'nin', number: p.nin, ...base },
      { kind: 'voters_card', number: p.votersCard, ...base },
      { kind: 'passport', number: p.passport, ...base },
      { kind: 'drivers_licence', number: p.driversLicence, ...base },
    ] satisfies IdentityRecord[];
  });
}

export interface SyntheticCompany {
  type: 'RC' | 'BN' | 'IT';
  record: CompanyRegistryRecord;
  tin: string;
}

export function syntheticCompanies(count = 60, people = syntheticPeople()): SyntheticCompany[] {
  const next = seededRandom(19610101);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  return Array.from({ length: count }, (_, i) => {
    const type = (['RC', 'RC', 'RC', 'BN', 'IT'] as const)[i % 5]!;
    const businessName =
      `${pick(WORDS)} ${pick(TRADES)} ${type === 'BN' ? 'Enterprises' : type === 'IT' ? 'Foundation' : 'Limited'}`.toUpperCase();
    const [state, city, lga] = pick(STATES);
    const year = 1990 + Math.floor(next() * 34);
    const registrationDate = `${year}-${pad(1 + Math.floor(next() * 12), 2)}-${pad(1 + Math.floor(next() * 28), 2)}`;
    const directors = [people[(i * 3) % people.length]!, people[(i * 3 + 1) % people.length]!];
    const record: CompanyRegistryRecord = {
      registrationNumber: String(1000000 + i * 1733),
      businessName,
      status: next() < 0.9 ? 'ACTIVE' : 'INACTIVE',
      classification: type === 'RC' ? 'PRIVATE_COMPANY_LIMITED_BY_SHARES' : type === 'BN' ? 'BUSINESS_NAME' : 'INCORPORATED_TRUSTEES',
      registrationDate,
      headOfficeAddress: `${1 + Math.floor(next() * 200)} ${pick(WORDS)} Street, ${city}`,
      branchAddress: null,
      state,
      city,
      lga,
      companyEmail: `info@${businessName.toLowerCase().replace(/[^a-z]+/g, '')}.example`,
      entityType: type,
      statusMore: null,
      affiliates: directors.length,
      affiliatesData: directors.map((p) => ({
        surname: p.lastName.toUpperCase(),
        firstname: p.firstName.toUpperCase(),
        othername: p.middleName ? p.middleName.toUpperCase() : null,
        gender: p.gender.toUpperCase(),
        email: `${p.firstName}.${p.lastName}@mail.example`.toLowerCase(),
        phoneNumber: `0803${pad(Math.floor(next() * 1e7), 7)}`,
        dateOfBirth: p.dob,
        dateOfAppointment: registrationDate,
        nationality: 'NIGERIAN',
        address: `${1 + Math.floor(next() * 90)} ${pick(WORDS)} Close, ${city}`,
        occupation: 'BUSINESS',
        affiliateType: 'DIRECTOR',
        idType: 'NIN',
      })),
    };
    return { type, record, tin: `${pad(10000000 + i * 977, 8)}-0001` };
  });
}

/** tin rows for the sample companies: the tin check compares them with the corporate customer. */
export function syntheticCompanyTins(companies = syntheticCompanies()): IdentityRecord[] {
  return companies.map((c) => ({
    kind: 'tin',
    number: c.tin,
    name: c.record.businessName,
    registrationNumber: c.record.registrationNumber,
  }));
}
