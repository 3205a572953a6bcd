import type { CasePriority, CaseRecord } from './events.js';

/** What a case shows of one decision that was not approved: the alert it raised. */
export interface CaseAlert {
  transactionId: string;
  reference: string;
  /** The decision's action (`declined`, `review`, ...). */
  action: string;
  /** The decision's risk score, a decimal as the decision gives it. */
  score: string;
  priority: CasePriority;
  /** Ids of the rules that fired. */
  rules: string[];
  decidedAt: string;
  /** The decision's explanation in words. */
  reason: string;
}

/** How a business groups alerts into cases: by the customer (else the account), or by the sending account. */
export const CASE_GROUPINGS = ['customer', 'account'] as const;
export type CaseGrouping = (typeof CASE_GROUPINGS)[number];

/** Who an alert can be about; the business's grouping picks one. A decision without either stands alone. */
export interface AlertSubjects {
  user?: { id: string; name: string };
  account?: { id: string; name: string };
  transaction: { id: string; name: string };
}

/** The record of the case an alert belongs to, and its grouping key (`user:ID`, `account:ID`, `transaction:ID`). */
export function subjectOf(grouping: CaseGrouping, subjects: AlertSubjects): { key: string; record: CaseRecord } {
  const order = grouping === 'account' ? (['account', 'user'] as const) : (['user', 'account'] as const);
  for (const type of order) {
    const found = subjects[type];
    if (found) return { key: `${type}:${found.id}`, record: { type, id: found.id, name: found.name } };
  }
  const t = subjects.transaction;
  return { key: `transaction:${t.id}`, record: { type: 'transaction', id: t.id, name: t.name } };
}

/** The open case a subject's next alert joins, as this process last knew it. */
export interface KnownCase {
  caseId: string;
  openedAt: number;
  /** The case stream's version the next alert expects. */
  next: number;
}

interface Entry {
  /** The subject stream's version the next opening expects. */
  subjectVersion: number;
  open: KnownCase | undefined;
  /** When (in this index's ticks) the entry last changed: a read older than that does not overwrite it. */
  changedAt: number;
  /** A write made from it failed: the versions reserved after it are holes, and the next alert reads the log. */
  stale?: boolean;
}

/**
 * The subjects' open cases as this process knows them, so that an alert costs no read of the log: the writes it
 * makes expect the versions kept here, and a wrong guess (another process wrote, an append failed, an
 * investigator closed the case) fails the append with a version conflict, whose retry reads the log.
 * Versions are reserved as writes are made, so a burst for one subject in one tick commits in order.
 */
export class SubjectIndex {
  readonly #entries = new Map<string, Entry>();
  #tick = 0;

  /** What a subject unseen here is guessed to be: no case yet. */
  known(key: string): Entry {
    return this.#entries.get(key) ?? { subjectVersion: 0, open: undefined, changedAt: 0 };
  }

  /** A tick to pass to `learn` once a read that starts now completes. */
  startRead(): number {
    return ++this.#tick;
  }

  /** Takes what the log said as of `readAt`, unless writes were reserved since, which already account for it. */
  learn(key: string, readAt: number, subjectVersion: number, open: KnownCase | undefined): void {
    const entry = this.#entries.get(key);
    if (entry && entry.changedAt > readAt) return;
    this.#entries.set(key, { subjectVersion, open, changedAt: readAt });
  }

  /** Whether a write made from the subject's entry failed since the log was last read for it. */
  isStale(key: string): boolean {
    return this.#entries.get(key)?.stale === true;
  }

  /**
   * A write made from the subject's entry failed (a conflict, the control fence, a crash of the append): every version
   * reserved from it since may never be written, so the entry stands only until a read of the log replaces it.
   */
  invalidate(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    entry.stale = true;
    entry.changedAt = ++this.#tick;
  }

  /** Reserves the next version of the open case's stream, for an alert joining it. */
  reserveJoin(key: string): number {
    const entry = this.#entries.get(key)!;
    entry.changedAt = ++this.#tick;
    return entry.open!.next++;
  }

  /** Reserves the subject's next opening, and records the case it opens (with `events` on its stream). */
  reserveOpening(key: string, open: KnownCase): number {
    const { subjectVersion } = this.known(key);
    this.#entries.set(key, { subjectVersion: subjectVersion + 1, open, changedAt: ++this.#tick });
    return subjectVersion;
  }
}
