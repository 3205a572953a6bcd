// Which transactions a day's threshold report carries: those at or above the threshold of their customer's type.
import { Decimal } from 'decimal.js';
import type { CustomerDoc } from '../cdd/index.js';
import type { ReportingSettings } from './events.js';
import type { ReportedTransaction } from './ports.js';
import { fieldsOf, localAmount } from './transactions.js';

export type CustomerType = 'individual' | 'corporate';

/** The Money Laundering (Prevention and Prohibition) Act 2022's figures, in naira. */
export const DEFAULT_THRESHOLDS = { individual: '5000000', corporate: '10000000' } as const;

/** The business's day (YYYY-MM-DD) an instant falls on, at its offset from UTC. */
export const dayOf = (iso: string, utcOffsetMinutes: number): string =>
  new Date(new Date(iso).getTime() + utcOffsetMinutes * 60_000).toISOString().slice(0, 10);

/** When a transaction happened: its own date when it sent one, else when it was decided. */
export const happenedAt = (tx: ReportedTransaction): string => fieldsOf(tx).transactionData.transactionDate ?? tx.decidedAt;

/** The customer's type: its CDD record's, else what the request says of the account (a business account is corporate). */
export function customerTypeOf(tx: ReportedTransaction, customer: CustomerDoc | undefined): CustomerType {
  if (customer) return customer.type;
  return /corporate|business|company|entity/i.test(fieldsOf(tx).anonymizedUserData?.accountType ?? '') ? 'corporate' : 'individual';
}

/** The lower threshold: a transaction below it is left out without looking up its customer. */
export const lowestThreshold = (settings: Pick<ReportingSettings, 'thresholds'>): Decimal =>
  Decimal.min(settings.thresholds.individual, settings.thresholds.corporate);

/** Whether a transaction of a customer type belongs in the batch of `date`. */
export function isReportable(tx: ReportedTransaction, type: CustomerType, date: string, settings: ReportingSettings): boolean {
  if (dayOf(happenedAt(tx), settings.utcOffsetMinutes) !== date) return false;
  const amount = localAmount(fieldsOf(tx), settings.currency);
  return amount?.gte(settings.thresholds[type]) ?? false;
}
