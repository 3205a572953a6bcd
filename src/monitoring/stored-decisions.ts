// A business's stored decisions as callers read them: one by id or by reference, all of them in log order, a
// party's, the last hours' counts, and each one's place in the log for its inclusion proof.
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import { NotFoundError } from '../errors.js';
import type { EventStore } from '../store/index.js';
import { isTransactionId, transactionStream, type Decision, type TransactionDecidedData } from './events.js';
import { decisionPositions, transactionIdByReference, type MonitoringTables } from './projection.js';
import {
  decisionStats,
  decisionsOfParty,
  type DecisionIndexTables,
  type DecisionStats,
  type DecisionSummary,
  type Party,
} from './decision-index.js';
import { readTransactionFacts, type TransactionFacts } from './transaction-facts.js';

export interface StoredTransaction extends Decision {
  reference: string;
  decidedAt: string;
  rulesetVersion: string;
  caseId: string | null;
  features: TransactionDecidedData['features'];
  request: unknown;
}

/** A stored decision's event by id; the decision pipeline's, which sees decisions committed by this process first. */
export type DecidedReader = (businessId: string, transactionId: string) => Promise<{ data: TransactionDecidedData } | undefined>;

/** Decisions read per query by `transactions`: a page of positions from the index, then their events. */
const DECISIONS_PAGE = 500;

const storedTransaction = (data: TransactionDecidedData): StoredTransaction => ({
  ...data.decision,
  reference: data.reference,
  decidedAt: data.decidedAt,
  rulesetVersion: data.rulesetVersion,
  caseId: data.caseId,
  features: data.features,
  request: data.request,
});

export class StoredDecisions {
  readonly #db: Kysely<MonitoringTables>;
  readonly #index: Kysely<DecisionIndexTables>;
  readonly #store: EventStore;
  readonly #clock: Clock;
  readonly #decided: DecidedReader;

  constructor(db: Kysely<any>, store: EventStore, clock: Clock, decided: DecidedReader) {
    this.#db = db;
    this.#index = db;
    this.#store = store;
    this.#clock = clock;
    this.#decided = decided;
  }

  async byId(businessId: string, transactionId: string): Promise<StoredTransaction> {
    const stored = isTransactionId(transactionId) ? await this.#decided(businessId, transactionId) : undefined;
    if (!stored) throw new NotFoundError('Transaction not found');
    return storedTransaction(stored.data);
  }

  async byReference(businessId: string, reference: string): Promise<StoredTransaction | undefined> {
    const transactionId = await transactionIdByReference(this.#db)(businessId, reference);
    return transactionId === undefined ? undefined : this.byId(businessId, transactionId);
  }

  async *all(businessId: string): AsyncGenerator<StoredTransaction> {
    let after = 0;
    for (;;) {
      const positions = await decisionPositions(this.#db, businessId, { after, upTo: Number.MAX_SAFE_INTEGER, limit: DECISIONS_PAGE });
      if (positions.length === 0) return;
      for (const e of await this.#store.readPositions(positions)) yield storedTransaction(e.data as TransactionDecidedData);
      after = positions[positions.length - 1]!;
    }
  }

  facts(businessId: string, transactionIds: readonly string[]): Promise<Map<string, TransactionFacts>> {
    return readTransactionFacts(this.#store, businessId, transactionIds);
  }

  async position(businessId: string, transactionId: string): Promise<number> {
    const [event] = isTransactionId(transactionId) ? await this.#store.readStream(transactionStream(businessId, transactionId)) : [];
    if (!event) throw new NotFoundError('Transaction not found');
    return event.position;
  }

  // The decision index is deferred (applied after the commits): a read waits for what is committed to reach it.
  async ofParty(businessId: string, party: Party, limit: number): Promise<DecisionSummary[]> {
    await this.#store.settleDeferred();
    return decisionsOfParty(this.#index, businessId, party, Math.max(1, Math.min(200, limit)));
  }

  async stats(businessId: string, hours: number): Promise<DecisionStats> {
    await this.#store.settleDeferred();
    return decisionStats(this.#index, businessId, new Date(this.#clock.now().getTime() - hours * 3_600_000).toISOString());
  }
}
