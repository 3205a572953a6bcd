import type { BySubject } from '../customer-projection.js';
import type { Confirmations, CustomerDoc } from '../types.js';

const upper = (s: string | undefined) => (s ? s.trim().toUpperCase() : undefined);
const lower = (s: string | undefined) => (s ? s.trim().toLowerCase() : undefined);

/** The rule input for one customer: its declared facts plus what reviewers confirmed on it and its persons. */
export function riskInput(doc: CustomerDoc, confirmations: BySubject<Confirmations>): Record<string, unknown> {
  const own = confirmations.customer;
  const persons = Object.values(confirmations.persons);
  const people =
    doc.type === 'corporate' ? [...(doc.directors ?? []), ...(doc.signatories ?? []), ...(doc.ultimateBeneficialOwners ?? [])] : [];
  const home = upper(doc.type === 'corporate' ? doc.countryOfIncorporation : doc.countryOfResidence) ?? 'NG';
  const accounts = doc.accounts ?? [];
  const income =
    doc.type === 'corporate'
      ? doc.annualRevenue
      : (doc.annualIncome ?? (doc.monthlyIncome === undefined ? undefined : doc.monthlyIncome * 12));
  const individual = doc.type === 'individual' ? doc : undefined;
  const corporate = doc.type === 'corporate' ? doc : undefined;
  return {
    customer: {
      type: doc.type,
      countryOfResidence: upper(individual?.countryOfResidence),
      nationality: upper(individual?.nationality),
      countryOfIncorporation: upper(corporate?.countryOfIncorporation),
      occupation: lower(individual?.occupation),
      employmentStatus: lower(individual?.employmentStatus),
      industryType: lower(corporate?.industryType),
      natureOfBusiness: lower(corporate?.natureOfBusiness),
      channel: lower(doc.channel),
      customerSegment: lower(doc.customerSegment),
      kycLevel: lower(doc.kycLevel),
      sourceOfFunds: lower(doc.sourceOfFunds),
      politicalPosition: individual?.politicalPosition ?? false,
      declaredPep: doc.isPep ?? false,
      pepConfirmed: own.pep !== undefined,
      sanctionConfirmed: own.sanctions !== undefined,
      adverseMediaConfirmed: own.adverseMedia !== undefined,
      biometricVerified: individual?.biometricVerified,
      relationshipStartDate: doc.relationshipStartDate,
      annualIncome: income,
      annualTurnover: corporate?.annualTurnover,
      totalAverageBalance: accounts.reduce((sum, a) => sum + (a.averageBalance ?? 0), 0),
      accountCount: accounts.length,
      hasDomiciliaryAccount: accounts.some((a) => lower(a.accountType) === 'domiciliary'),
      hasNonNairaAccount: accounts.some((a) => a.accountCurrency !== undefined && upper(a.accountCurrency) !== 'NGN'),
    },
    persons: {
      pepConfirmed: persons.filter((c) => c.pep).length,
      sanctionConfirmed: persons.filter((c) => c.sanctions).length,
      adverseMediaConfirmed: persons.filter((c) => c.adverseMedia).length,
      declaredPep: people.filter((p) => p.isPep).length,
      foreignNationals: people.filter((p) => p.nationality && upper(p.nationality) !== home).length,
    },
  };
}
