import type { EventStore } from '../store/index.js';
import { isTransactionId, LISTS, transactionStream, type TransactionDecidedData } from './events.js';
import type { InstantRequest } from './request-schema.js';

/** What an analyst reads of a flagged transaction before opening it: money, time, parties, and the list entries it hit. */
export interface TransactionFacts {
  transactionId: string;
  reference: string;
  amount: number | null;
  currency: string | null;
  /** When the transaction happened (its own date), else when it was decided. */
  occurredAt: string;
  channel: string | null;
  type: string | null;
  customer: { id: string; name: string | null } | null;
  senderAccount: string | null;
  counterparty: { name: string | null; account: string | null; bank: string | null; country: string | null } | null;
  /** The blacklist entries the transaction's parties are on, as `List: value`. */
  listHits: string[];
}

const orNull = <T>(value: T | null | undefined): T | null => value ?? null;

export function transactionFacts(data: TransactionDecidedData): TransactionFacts {
  const request = data.request as InstantRequest;
  const t = request.transactionData;
  const user = request.anonymizedUserData;
  const other = request.counterpartyData;
  const account = orNull(other?.accountNumber ?? t.receiverAccount);
  const counterpartyName = orNull(other?.name ?? request.screeningData?.receiverName);
  return {
    transactionId: data.transactionId,
    reference: data.reference,
    amount: orNull(t.amount),
    currency: orNull(t.currency),
    occurredAt: t.transactionDate ?? data.decidedAt,
    channel: orNull(t.channel),
    type: orNull(t.type),
    customer: user?.uniqueId ? { id: user.uniqueId, name: orNull(user.name) } : null,
    senderAccount: orNull(t.senderAccount),
    counterparty:
      account || counterpartyName
        ? { name: counterpartyName, account, bank: orNull(other?.bankName), country: orNull(other?.country ?? other?.bankCountry) }
        : null,
    listHits: data.features.blacklistHits.map((h) => `${LISTS[h.list].label}: ${h.value}`),
  };
}

/** The facts of a page of decisions, read in one query, by transaction id (ids not decided are left out). */
export async function readTransactionFacts(
  store: EventStore,
  businessId: string,
  transactionIds: readonly string[],
): Promise<Map<string, TransactionFacts>> {
  const streams = [...new Set(transactionIds)].filter(isTransactionId).map((id) => transactionStream(businessId, id));
  const events = streams.length === 0 ? [] : await store.readFirstEvents(streams);
  const facts = new Map<string, TransactionFacts>();
  for (const e of events) {
    if (e.type !== 'TransactionDecided' || e.metadata.businessId !== businessId) continue;
    const found = transactionFacts(e.data as TransactionDecidedData);
    facts.set(found.transactionId, found);
  }
  return facts;
}
