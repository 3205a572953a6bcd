// A business set up to report: goAML settings, a customer with complete records, and a case closed as reported.
import type { CaseDisposition } from '../../src/cases/index.js';
import type { Engine } from '../../src/engine.js';
import type { ReportingSettingsInput } from '../../src/reports/index.js';
import { tx } from '../monitoring/fixtures.js';

/** The disposition that makes a case reportable, in whichever name case management gives it. */
export const REPORTED: CaseDisposition = 'reported';

/** Settings whose code lists are the shipped schema's own (the UAE FIU's), so its reports validate against it unchanged. */
export const settings = (fiu = 'uae'): ReportingSettingsInput => ({
  fiu,
  rentityId: 1042,
  branch: 'Head office, Marina',
  reportingPerson: { firstName: 'Ngozi', lastName: 'Eze', email: 'mlro@acme.example', occupation: 'MLRO' },
  institution: { name: 'Acme Microfinance Bank', code: 'ACMENGLA' },
});

export const customer = (uniqueId: string, account: string, patch: Record<string, unknown> = {}) => ({
  type: 'individual' as const,
  uniqueId,
  firstName: 'Adébáyọ̀',
  lastName: 'Okafor',
  dob: '1988-04-12T00:00:00.000Z',
  gender: 'male',
  nationality: 'NG',
  countryOfResidence: 'NG',
  phone: '+2348031234567',
  email: 'ade.okafor@example.com',
  occupation: 'Trader',
  ninNumber: '12345678901',
  kycDocuments: [
    {
      type: 'passport',
      documentNumber: 'A01234567',
      issuingCountry: 'NG',
      issuingAuthority: 'Nigeria Immigration Service',
      issueDate: '2020-01-15T00:00:00.000Z',
      expiryDate: '2030-01-14T00:00:00.000Z',
    },
  ],
  accounts: [{ accountNumber: account, accountType: 'savings', accountCurrency: 'NGN', openingDate: '2019-06-01T00:00:00.000Z' }],
  ...patch,
});

/** A flagged transaction of the customer's (a banned user is rejected), whose case is then closed as reported. */
export async function reportedCase(
  engine: Engine,
  businessId: string,
  uniqueId: string,
  account: string,
  reference: string,
  transactions = 1,
  transactionData: Record<string, unknown> = {},
): Promise<string> {
  let caseId: string | null = null;
  // Each flagged decision of the customer is an alert of the same case.
  for (let i = 0; i < transactions; i++) {
    const body = tx(i === 0 ? reference : `${reference}x${i}`, {
      transactionData: {
        amount: 7_250_000,
        senderAccount: account,
        receiverAccount: '9876543210',
        channel: 'mobile',
        type: 'transfer',
        ...transactionData,
      },
      anonymizedUserData: { uniqueId, isBanned: true, name: 'Adebayo Okafor' },
      counterpartyData: { accountNumber: '9876543210', bankCode: '058', name: 'Chinedu Okeke', bankCountry: 'NG' },
    });
    const decision = await engine.monitoring.decide({ businessId }, body);
    ({ caseId } = await engine.monitoring.getTransaction(businessId, decision.transactionId));
  }
  const actor = { businessId, userId: 'analyst1' };
  await engine.cases.update(actor, caseId!, { status: 'in progress' });
  await engine.cases.update(actor, caseId!, { status: 'resolved' });
  await engine.cases.closeWithDisposition(actor, caseId!, REPORTED);
  return caseId!;
}
