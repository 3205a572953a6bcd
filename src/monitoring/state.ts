// The in-memory state of every business, kept in step with the log. Local decisions are recorded the moment
// they are made (so a burst in one tick sees itself), everything else as the store reports commits, and a
// position guard makes each event count once whether it arrived by replay, by subscription, or both.
import { HistoryStore, VelocityStore, type CompiledRuleset, type Env } from '../rules/index.js';
import { DAY_MS } from '../rules/schema.js';
import type { EventStore, StoredEvent } from '../store/index.js';
import { BusinessState, type BusinessSnapshot, type RecordedDecision } from './business-state.js';
import { DecidedFilter, type BloomSnapshot } from './decided-filter.js';
import { MONITORING_EVENT_TYPES, referenceKeyOf, type MonitoringEvent, type TransactionDecidedData } from './events.js';
import { rebuildInThread, type RebuildSource } from './rebuild-in-thread.js';
import { HoldTimer, Pace, pausedHold, replayInto, type SwapHolds } from './rebuild-slices.js';
import { maxWindowMs, planRebuild, RulesetRebuild, type Rebuilt } from './ruleset-rebuild.js';

const TIMELINE_EVERY = 1024;
export const HISTORY_HORIZON_MS = 400 * DAY_MS;
/** A swap's rebuilt state catches up with decisions in passes while they go on; a starved one stops after this many. */
const CATCH_UP_PASSES = 16;
const STALLED_PASSES = 3;
const localKey = (businessId: string, referenceKey: string) => `${businessId}\u0000${referenceKey}`;
const MONITORING_TYPES: ReadonlySet<string> = new Set(MONITORING_EVENT_TYPES);

/** Where a swap rebuilt what the new ruleset needs of the log; why not in the thread, when it was given one. */
export interface Swapped {
  readonly rebuilt: 'nothing' | 'thread' | 'here';
  readonly threadFailure?: string;
  /** How long each stage held the deciding thread (none when nothing was rebuilt). */
  readonly holds?: SwapHolds;
}

/** The whole state as of a log position: every event up to `position` is in it and none after. */
export interface StateSnapshot {
  readonly position: number;
  readonly decisionsSeen: number;
  readonly timeline: readonly { readonly position: number; readonly at: number }[];
  readonly decided: readonly BloomSnapshot[];
  readonly businesses: ReadonlyMap<string, BusinessSnapshot>;
}

export class MonitoringState {
  #ruleset: CompiledRuleset;
  readonly #historyHorizonMs: number;
  readonly #businesses = new Map<string, BusinessState>();
  /**
   * Decisions recorded here before their event committed, by business and reference key: their notification is
   * not recorded again, nor that of another process's decision of the same reference that won the append.
   */
  readonly #local = new Set<string>();
  #appliedPosition = 0;
  #decided = new DecidedFilter();
  /** Every TIMELINE_EVERY-th decision's (position, time): where to start reading the log for a time window. */
  #timeline: { position: number; at: number }[] = [];
  #decisionsSeen = 0;
  #inflight = 0;
  #idle: (() => void)[] = [];
  /** Closed while a snapshot is taken, or a new ruleset's rebuilt state catches up with the log; decisions wait on it. */
  #gate: Promise<void> = Promise.resolve();
  #swaps: Promise<unknown> = Promise.resolve();
  /** Whether another process's decision is applied here (partition-follow.ts); none: every decision is. */
  #follows: ((decided: StoredEvent) => boolean) | undefined;

  /** `historyHorizonMs`: how long a pair or key unseen is remembered (a pair unseen for longer counts as new). */
  constructor(ruleset: CompiledRuleset, historyHorizonMs = HISTORY_HORIZON_MS) {
    this.#ruleset = ruleset;
    this.#historyHorizonMs = historyHorizonMs;
  }

  get ruleset(): CompiledRuleset {
    return this.#ruleset;
  }

  get ready(): Promise<void> {
    return this.#gate;
  }

  /** The position of the last monitoring event applied (or skipped as another partition's). */
  get appliedPosition(): number {
    return this.#appliedPosition;
  }

  get historyHorizonMs(): number {
    return this.#historyHorizonMs;
  }

  /** From now on, decisions of other processes are applied only where `follows` says so; lists always are. */
  follow(follows: (decided: StoredEvent) => boolean): void {
    this.#follows = follows;
  }

  /** Runs `work` while no decision is being made: those that come meanwhile wait, and those under way have settled. */
  paused<T>(work: () => T | Promise<T>): Promise<T> {
    return this.#whileClosed(async () => {
      do await this.#whenIdle();
      while (this.#inflight > 0);
      return work();
    });
  }

  /** Transaction ids with a decision in the log (or on its way there): the idempotency check's fast path. */
  get decided(): DecidedFilter {
    return this.#decided;
  }

  /**
   * The state as of `position` (the store's notified position), taken while no local decision is between its
   * evaluation and its commit: decisions wait at the gate meanwhile. Shares live maps, so `use` must serialise
   * it before returning.
   */
  async snapshot<T>(position: () => number, use: (snapshot: StateSnapshot) => T): Promise<T> {
    return this.#whileClosed(async () => {
      for (;;) {
        await this.#whenIdle();
        // A decision that passed the gate before it closed may have recorded itself since idle was signalled.
        if (this.#inflight > 0) continue;
        const businesses = new Map([...this.#businesses].map(([id, b]) => [id, b.snapshot()]));
        return use({
          position: position(),
          decisionsSeen: this.#decisionsSeen,
          timeline: this.#timeline,
          decided: this.#decided.snapshot(),
          businesses,
        });
      }
    });
  }

  /** Replaces this (empty) state by a snapshot's; false when the ruleset needs state the snapshot lacks. */
  restore(snapshot: StateSnapshot): boolean {
    const businesses = new Map<string, BusinessState>();
    for (const [id, saved] of snapshot.businesses) {
      const business = BusinessState.restored(this.#ruleset, saved);
      if (!business) return false;
      businesses.set(id, business);
    }
    const decided = DecidedFilter.restored(snapshot.decided);
    const timeline = [...snapshot.timeline];
    // Replaced only once everything is built: a snapshot that fails to restore leaves this state as it was.
    this.#businesses.clear();
    for (const [id, b] of businesses) this.#businesses.set(id, b);
    this.#decided = decided;
    this.#timeline = timeline;
    this.#decisionsSeen = snapshot.decisionsSeen;
    this.#appliedPosition = snapshot.position;
    return true;
  }

  business(businessId: string): BusinessState {
    let state = this.#businesses.get(businessId);
    if (!state) this.#businesses.set(businessId, (state = new BusinessState(this.#ruleset)));
    return state;
  }

  get businesses(): ReadonlyMap<string, BusinessState> {
    return this.#businesses;
  }

  /**
   * Records a decision made here, by its reference key (events.ts), before its append commits; `settled` must be
   * called with what this returns once the append is done.
   * `env` is the Env the decision was evaluated with, in the same tick, over this business's current state.
   */
  recordLocal(businessId: string, referenceKey: string, env: Env, at: number): RecordedDecision {
    this.#local.add(localKey(businessId, referenceKey));
    this.#decided.add(referenceKey);
    this.#inflight++;
    return this.business(businessId).recordEvaluated(env, at);
  }

  /**
   * `recorded`: its event, or another process's decision of the same reference, stands for it in the log.
   * Otherwise the append failed, and the decision is taken out of velocity and history: the state is then what
   * the log rebuilds. (The idempotency filter keeps its key: a false "may have" costs one lookup, never an answer.)
   */
  settled(businessId: string, referenceKey: string, recorded: boolean, decision: RecordedDecision): void {
    const business = this.business(businessId);
    business.settle(decision, !recorded);
    if (!recorded) {
      this.#local.delete(localKey(businessId, referenceKey));
      // A business this decision brought into memory goes again: a replay of the log would not know it either.
      if (business.empty) this.#businesses.delete(businessId);
    }
    if (--this.#inflight === 0) for (const resolve of this.#idle.splice(0)) resolve();
  }

  /** The store's subscriber: events in log order, local and from other processes alike. */
  apply(events: readonly StoredEvent[]): void {
    for (const e of events) if (MONITORING_TYPES.has(e.type)) this.#applyOne(e, true);
  }

  #applyOne(stored: StoredEvent, velocity: boolean): void {
    const decided = stored.type === 'TransactionDecided';
    // The stream id carries the reference key (events.ts), so the data need not be parsed for it.
    const key = decided ? referenceKeyOf(stored.streamId) : '';
    const local = decided && this.#local.delete(localKey(stored.metadata.businessId, key));
    if (decided) this.#decided.add(key);
    if (stored.position <= this.#appliedPosition) return;
    this.#appliedPosition = stored.position;
    if (decided) {
      // Recording time trails decision time by one commit: close enough to find where a window starts.
      if (this.#decisionsSeen++ % TIMELINE_EVERY === 0)
        this.#timeline.push({ position: stored.position, at: Date.parse(stored.recordedAt) - 60_000 });
      if (local) return;
      // Skipped before its data is read: what another node's partition decides is not this node's to hold.
      if (this.#follows && !this.#follows(stored)) return;
    }
    const event = { type: stored.type, data: stored.data } as MonitoringEvent;
    const business = this.business(stored.metadata.businessId);
    if (event.type !== 'TransactionDecided') {
      business.applyListEvent(event);
      return;
    }
    const at = Date.parse(event.data.decidedAt);
    business.record(event.data.request, at, velocity);
  }

  /**
   * Start-up: lists and history from the whole log (or the part after a restored snapshot), up to `upTo`;
   * velocity only from events inside the longest window.
   */
  async rebuild(store: EventStore, now: number, upTo = Infinity): Promise<void> {
    const from = now - maxWindowMs(this.#ruleset);
    for await (const e of store.iterateAll({ after: this.#appliedPosition, types: MONITORING_EVENT_TYPES, pageSize: 5000 })) {
      if (e.position > upTo) break;
      const at = e.type === 'TransactionDecided' ? Date.parse((e.data as TransactionDecidedData).decidedAt) : now;
      this.#applyOne(e, at >= from);
    }
  }

  /**
   * Swaps in a new ruleset. The velocity windows of features both rulesets share carry over, and so does the
   * history both read. If the new one has features of its own, or reads history the current one does not keep,
   * that is rebuilt from the log (windows from the longest window's start, history from the horizon's) while
   * decisions go on under the current ruleset, in 1 ms slices between them (rebuild-slices.ts); they pause only
   * for the last few events, so no decision sees a half-filled window or a pair it should know as new. Swaps run one at a time. With `thread`, the log up to the
   * applied position, and what is committed meanwhile, is read and rebuilt in a thread of its own
   * (rebuild-in-thread.ts): this thread only takes its parts in, one between decisions, and catches up.
   */
  swap(next: CompiledRuleset, store: EventStore, now: number, thread?: RebuildSource): Promise<Swapped> {
    const swapped = this.#swaps.then(() => this.#swapNow(next, store, now, thread));
    this.#swaps = swapped.catch(() => undefined);
    return swapped;
  }

  async #swapNow(next: CompiledRuleset, store: EventStore, now: number, thread: RebuildSource | undefined): Promise<Swapped> {
    const plan = planRebuild(this.#ruleset, next, now, this.#historyHorizonMs);
    if (!plan) {
      this.#adopt(next, new Map());
      return { rebuilt: 'nothing' };
    }
    const begin = () => {
      const r = new RulesetRebuild(next, plan);
      for (const id of this.#businesses.keys()) r.of(id);
      return r;
    };
    let rebuild = begin();
    const parts = new HoldTimer();
    const slices = new HoldTimer();
    const replay = (after: number, upTo: number, sliced = true) =>
      replayInto(rebuild, store, { after, upTo }, this.#follows && ((e) => !this.#follows!(e)), slices, sliced);
    let upTo = this.#appliedPosition;
    const start = this.#timeline.findLast((t) => t.at < rebuild.from)?.position ?? 0;
    // The thread cannot ask `follows` (this node's partitions, partition-follow.ts): a node holding only its
    // partitions rebuilds here, reading past the others' decisions.
    const inThread = this.#follows ? undefined : thread;
    let swapped: Pick<Swapped, 'rebuilt' | 'threadFailure'> = { rebuilt: inThread ? 'thread' : 'here' };
    if (!inThread) await replay(start, upTo);
    else
      upTo = await rebuildInThread(inThread, rebuild, { after: start, upTo, applied: () => this.#appliedPosition }, parts).catch(
        async (error: unknown) => {
          // The rules directory holds another ruleset by now, or the thread could not read the log: rebuilt here.
          swapped = { rebuilt: 'here', threadFailure: error instanceof Error ? error.message : String(error) };
          rebuild = begin();
          await replay(start, upTo);
          return upTo;
        },
      );
    // Each further pass reads what was committed during the one before, until what is left replays within a slice
    // at the pace the passes went, or STALLED_PASSES passes in a row leave no less than the best one did (decisions
    // commit faster than they are replayed here, on a starved machine): the last pass runs with decisions paused.
    // One pass that a collector's pause stretched does not end the catch-up: the end would replay its backlog paused.
    const pace = new Pace();
    for (let pass = 0, least = Infinity, stalled = 0; pass < CATCH_UP_PASSES; pass++) {
      const ahead = this.#appliedPosition - upTo;
      if (ahead <= pace.pausedEvents) break;
      stalled = ahead >= least ? stalled + 1 : 0;
      if (stalled >= STALLED_PASSES) break;
      least = Math.min(least, ahead);
      const after = upTo;
      upTo = this.#appliedPosition;
      const before = slices.totalMs;
      pace.went(await replay(after, upTo), slices.totalMs - before);
    }
    const closed = performance.now();
    let paused = pausedHold(0, 0, 0);
    await this.#whileClosed(async () => {
      await this.#whenIdle();
      const idle = performance.now();
      const events = await replay(upTo, this.#appliedPosition, false);
      this.#adopt(next, rebuild.rebuilt);
      paused = pausedHold(idle - closed, performance.now() - idle, events);
    });
    return { ...swapped, holds: { parts: parts.toJSON(), slices: slices.toJSON(), paused } };
  }

  /** Every business's stores for `next`: what was rebuilt for it, and what both rulesets share carried over. */
  #adopt(next: CompiledRuleset, rebuilt: ReadonlyMap<string, Rebuilt>): void {
    this.#ruleset = next;
    for (const id of rebuilt.keys()) this.business(id);
    for (const [id, b] of this.#businesses) {
      const r = rebuilt.get(id);
      b.velocity = r?.velocity ?? new VelocityStore(next, b.velocity);
      b.history = new HistoryStore(next.schema, next.history, b.history, ...(r ? [r.history] : []));
    }
  }

  /** Runs `work` with the gate closed: decisions made after this call wait until it is done. */
  async #whileClosed<T>(work: () => Promise<T>): Promise<T> {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const before = this.#gate;
    this.#gate = gate;
    try {
      await before;
      return await work();
    } finally {
      open();
    }
  }

  #whenIdle(): Promise<void> {
    return this.#inflight === 0 ? Promise.resolve() : new Promise((resolve) => this.#idle.push(resolve));
  }

  /** Drops expired velocity entries and history older than the horizon, so memory follows live keys only. */
  evict(now: number): void {
    for (const b of this.#businesses.values()) {
      b.velocity.evictExpired(now);
      b.history.forgetBefore(now - this.#historyHorizonMs);
    }
  }
}
