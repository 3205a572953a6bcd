// The in-memory state of every business, kept in step with the log. Local decisions are recorded the moment
// they are made (so a burst in one tick sees itself), everything else as the store reports commits, and a
// position guard makes each event count once whether it arrived by replay, by subscription, or both.
import { VelocityStore, type CompiledRuleset } from '../rules/index.js';
import type { EventStore, StoredEvent } from '../store/index.js';
import { BusinessState } from './business-state.js';
import { DecidedFilter } from './decided-filter.js';
import { MONITORING_EVENT_TYPES, transactionStream, type MonitoringEvent, type TransactionDecidedData } from './events.js';

const TIMELINE_EVERY = 1024;
const MONITORING_TYPES: ReadonlySet<string> = new Set(MONITORING_EVENT_TYPES);

export class MonitoringState {
  #ruleset: CompiledRuleset;
  readonly #businesses = new Map<string, BusinessState>();
  /** Streams of decisions recorded here before their event committed; their notification is not recorded again. */
  readonly #local = new Set<string>();
  #appliedPosition = 0;
  /** Transaction ids with a decision in the log (or on its way there): the idempotency check's fast path. */
  readonly decided = new DecidedFilter();
  /** Every TIMELINE_EVERY-th decision's (position, time): where to start reading the log for a time window. */
  readonly #timeline: { position: number; at: number }[] = [];
  #decisionsSeen = 0;
  #inflight = 0;
  #idle: (() => void)[] = [];
  /** Closed while velocity is rebuilt for a new ruleset; decisions wait on it. */
  #gate: Promise<void> = Promise.resolve();

  constructor(ruleset: CompiledRuleset) {
    this.#ruleset = ruleset;
  }

  get ruleset(): CompiledRuleset {
    return this.#ruleset;
  }

  get ready(): Promise<void> {
    return this.#gate;
  }

  business(businessId: string): BusinessState {
    let state = this.#businesses.get(businessId);
    if (!state) this.#businesses.set(businessId, (state = new BusinessState(this.#ruleset)));
    return state;
  }

  get businesses(): ReadonlyMap<string, BusinessState> {
    return this.#businesses;
  }

  /** Records a decision made here, before its append commits; `settled` must be called once the append is done. */
  recordLocal(businessId: string, transactionId: string, request: unknown, at: number): void {
    this.#local.add(transactionStream(businessId, transactionId));
    this.decided.add(transactionId);
    this.#inflight++;
    this.business(businessId).record(request, at);
  }

  settled(businessId: string, transactionId: string, committed: boolean): void {
    if (!committed) this.#local.delete(transactionStream(businessId, transactionId));
    if (--this.#inflight === 0) this.#idle.splice(0).forEach((resolve) => resolve());
  }

  /** The store's subscriber: events in log order, local and from other processes alike. */
  apply(events: readonly StoredEvent[]): void {
    for (const e of events) if (MONITORING_TYPES.has(e.type)) this.#applyOne(e, true);
  }

  #applyOne(stored: StoredEvent, velocity: boolean): void {
    const decided = stored.type === 'TransactionDecided';
    const local = decided && this.#local.delete(stored.streamId);
    // The stream id ends with the transaction id (events.ts), so the data need not be parsed for it.
    if (decided) this.decided.add(stored.streamId.slice(-24));
    if (stored.position <= this.#appliedPosition) return;
    this.#appliedPosition = stored.position;
    if (decided) {
      // Recording time trails decision time by one commit: close enough to find where a window starts.
      if (this.#decisionsSeen++ % TIMELINE_EVERY === 0) this.#timeline.push({ position: stored.position, at: Date.parse(stored.recordedAt) - 60_000 });
      if (local) return;
    }
    const event = { type: stored.type, data: stored.data } as MonitoringEvent;
    const business = this.business(stored.metadata.businessId);
    if (event.type !== 'TransactionDecided') return business.applyListEvent(event);
    const at = Date.parse(event.data.decidedAt);
    business.record(event.data.request, at, velocity);
  }

  /** Start-up: lists and history from the whole log; velocity only from events inside the longest window. */
  async rebuild(store: EventStore, now: number): Promise<void> {
    const from = now - maxWindowMs(this.#ruleset);
    for await (const e of store.iterateAll({ after: this.#appliedPosition, types: MONITORING_EVENT_TYPES, pageSize: 5000 })) {
      const at = e.type === 'TransactionDecided' ? Date.parse((e.data as TransactionDecidedData).decidedAt) : now;
      this.#applyOne(e, at >= from);
    }
  }

  /**
   * Swaps in a new ruleset. Velocity windows of features both rulesets share carry over; if the new one has
   * features of its own, decisions pause while its windows are rebuilt from the log, so no decision ever
   * sees a half-filled window.
   */
  async swap(next: CompiledRuleset, store: EventStore, now: number): Promise<void> {
    const previous = this.#ruleset;
    const known = new Set(previous.features.map((f) => f.id));
    if (next.features.every((f) => known.has(f.id))) {
      this.#ruleset = next;
      for (const b of this.#businesses.values()) b.velocity = new VelocityStore(next, b.velocity);
      return;
    }
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const before = this.#gate;
    this.#gate = gate;
    try {
      await before;
      await this.#whenIdle();
      const from = now - maxWindowMs(next);
      const start = this.#timeline.findLast((t) => t.at < from)?.position ?? 0;
      const fresh = new Map<string, VelocityStore>();
      for (const id of this.#businesses.keys()) fresh.set(id, new VelocityStore(next));
      for await (const e of store.iterateAll({ after: start, types: ['TransactionDecided'], pageSize: 5000 })) {
        if (e.position > this.#appliedPosition) break;
        const data = e.data as TransactionDecidedData;
        const at = Date.parse(data.decidedAt);
        if (at < from) continue;
        const id = e.metadata.businessId;
        if (!fresh.has(id)) fresh.set(id, new VelocityStore(next));
        fresh.get(id)!.record(data.request, at);
      }
      this.#ruleset = next;
      for (const [id, velocity] of fresh) this.business(id).velocity = velocity;
    } finally {
      open();
    }
  }

  #whenIdle(): Promise<void> {
    return this.#inflight === 0 ? Promise.resolve() : new Promise((resolve) => this.#idle.push(resolve));
  }

  /** Drops expired velocity entries and history older than the horizon, so memory follows live keys only. */
  evict(now: number, historyHorizonMs: number): void {
    for (const b of this.#businesses.values()) {
      b.velocity.evictExpired(now);
      b.history.forgetBefore(now - historyHorizonMs);
    }
  }
}

export function maxWindowMs(ruleset: CompiledRuleset): number {
  return ruleset.features.reduce((max, f) => Math.max(max, f.windowMs), 0);
}
