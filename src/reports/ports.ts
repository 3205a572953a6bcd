// What the reports domain reads from the others, through their services' public calls (never their tables).
import type { CustomerDoc } from '../cdd/index.js';

/** A decided transaction as monitoring stores it: the request as sent and the decision's reasons. */
export interface ReportedTransaction {
  transactionId: string;
  reference: string;
  decidedAt: string;
  request: unknown;
  reason: { code: string; message: string };
  /** The rules that fired, null when none did. */
  ruleResult: { id: string; title: string; reason: { message: string } }[] | null;
}

export interface CasesPort {
  get(
    businessId: string,
    caseId: string,
  ): Promise<{ title: string; description: string; record: { id: string; type: string }; alerts: { transactionId: string }[] }>;
  closure(businessId: string, caseId: string): Promise<{ status: string; disposition: string | null }>;
}

export interface PolicyPort {
  /** The business's four-eyes policy names approving a report: its drafter cannot approve it. */
  reportApprovalTakesSecondPerson(businessId: string): Promise<boolean>;
}

export interface MonitoringPort {
  transaction(businessId: string, transactionId: string): Promise<ReportedTransaction>;
}

export interface CustomersPort {
  /** A customer by uniqueId, else by any of its account numbers. */
  find(businessId: string, idOrAccount: string): Promise<CustomerDoc | undefined>;
}

/** What reports read of the other domains. */
export interface ReportPorts {
  cases: CasesPort;
  monitoring: MonitoringPort;
  customers: CustomersPort;
  policy: PolicyPort;
}
