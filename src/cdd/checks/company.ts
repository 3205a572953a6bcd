import { COMPANY_TYPES, type CompanyProvider, type CompanyType } from '../../registry/index.js';
import type { Check } from '../types.js';
import { compareNameResult, compareRegistrationResult } from './identity.js';
import { CheckBuilder } from './result.js';
import type { SubjectFacts } from './subjects.js';

/** "BN 123" is a business name, "IT 45" incorporated trustees; a bare number is a company (RC). */
export function companyTypeOf(registrationNumber: string): CompanyType {
  const prefix = registrationNumber.trim().slice(0, 2).toUpperCase();
  return (COMPANY_TYPES as readonly string[]).includes(prefix) ? (prefix as CompanyType) : 'RC';
}

/** The cac check: the corporate customer against the company registry. */
export async function cacCheck(provider: CompanyProvider, facts: SubjectFacts, threshold: number, now: () => Date): Promise<Check> {
  const start = now().toISOString();
  const b = new CheckBuilder('cac', now);
  const rc = facts.registrationNumber;
  const record = rc ? await provider.company(companyTypeOf(rc), rc) : undefined;
  const missing = !rc ? 'No registration number submitted' : `No company registry record found for ${rc}`;
  compareNameResult(b, facts.subject.name, record?.businessName, threshold, start, missing);
  compareRegistrationResult(b, rc, record?.registrationNumber, start, missing);
  if (record) {
    const active = record.status.toUpperCase() === 'ACTIVE';
    b.add(
      'companyStatus',
      active,
      active ? 'The company is active' : `The registry shows status ${record.status}`,
      'ACTIVE',
      record.status,
      start,
    );
  }
  return b.build();
}
