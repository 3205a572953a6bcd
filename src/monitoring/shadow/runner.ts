// One running shadow: the candidate fed the business's decisions after they commit, in log order, each through
// the same Replayer a backtest uses (src/rules/backtest.ts): its recorded features first, then the state the
// decisions before it built. So a shadow changes exactly the decisions a backtest of the same candidate over the
// same traffic would, and a shadow of the deciding ruleset changes none. Nothing it does is on the answer's path:
// the store hands it committed events, which it queues and evaluates on later turns of the event loop.
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import { type CompiledRuleset, MemoryLists, type Providers, Replayer } from '../../rules/index.js';
import type { EventStore, StoredEvent } from '../../store/index.js';
import { type LoggedDecision, loggedDecision, storedDecisions } from '../backtest.js';
import { applyListEvent } from '../business-state.js';
import { toDecision } from '../decision.js';
import type { MonitoringEvent, TransactionDecidedData } from '../events.js';
import type { MonitoringTables } from '../projection.js';
import { emptyRecord, ownSlot, recordOf } from '../../own-keys.js';
import type { ShadowChange, ShadowEvent, ShadowHour, ShadowStopReason } from './events.js';

export const LIST_EVENT_TYPES = ['BlacklistEntryAdded', 'BlacklistEntryRemoved', 'CustomerDeviceSaved'];
const HANDLED = new Set(['TransactionDecided', ...LIST_EVENT_TYPES]);
/** Decisions evaluated per turn of the event loop, so that decisions arriving meanwhile are not held up. */
const PER_TURN = 200;
/** Changed decisions per event: a bound on one append's size. */
const CHANGES_PER_EVENT = 500;

export interface RunnerSpec {
  businessId: string;
  shadowId: string;
  candidate: CompiledRuleset;
  until: number;
  maxDecisions: number;
  /** Decisions up to here only build the candidate's state. */
  afterPosition: number;
  /** Decisions already evaluated (a shadow resumed after a restart). */
  evaluated: number;
}

export interface RunnerDeps {
  store: EventStore;
  db: Kysely<MonitoringTables>;
  clock: Clock;
  providers: Providers;
  historyHorizonMs: number;
  /** Appends the shadow's own events; never anything else. */
  record(events: ShadowEvent[]): Promise<void>;
  /** The runner stopped itself at a limit. */
  stopped(reason: ShadowStopReason): void;
}

const customerOf = (request: unknown): string | null => {
  const r = request as { anonymizedUserData?: { uniqueId?: unknown }; transactionData?: { senderAccount?: unknown } };
  const id = r.anonymizedUserData?.uniqueId ?? r.transactionData?.senderAccount;
  return typeof id === 'string' && id.trim() !== '' ? id : null;
};

export class ShadowRunner {
  readonly #lists = new MemoryLists();
  readonly #replayer: Replayer<LoggedDecision>;
  readonly #queue: StoredEvent[] = [];
  /** Events up to this position come from the log (warm-up and catch-up); later ones from the store's hand-off. */
  #liveAfter: number;
  #ready = false;
  #draining: Promise<void> | undefined;
  #stopped = false;
  #evaluated: number;
  // What is not yet recorded.
  #hours = new Map<string, ShadowHour>();
  #transitions = new Map<string, number>();
  #changes: ShadowChange[] = [];
  #unreproducible = 0;
  #first: string | undefined;
  #last: string | undefined;
  #through: number;
  readonly started: Promise<void>;

  constructor(
    readonly spec: RunnerSpec,
    private readonly deps: RunnerDeps,
  ) {
    const candidate = spec.candidate;
    this.#evaluated = spec.evaluated;
    this.#through = spec.afterPosition;
    this.#liveAfter = deps.store.notifiedPosition;
    this.#replayer = new Replayer(candidate, {
      lists: this.#lists,
      screeningScore: deps.providers.screeningScore,
      ipCountry: deps.providers.ipCountry,
      historyHorizonMs: deps.historyHorizonMs,
      // The engine's blacklist stop applies to the candidate as it did live, on the hits each decision recorded.
      finish: (d, evaluation) => {
        const decision = toDecision('', candidate, evaluation, d.blacklistHits);
        return { action: decision.action.result, fired: decision.ruleResult?.map((r) => r.id) ?? [], riskScore: decision.riskScore };
      },
    });
    this.started = this.#start();
  }

  get stoppedAlready(): boolean {
    return this.#stopped;
  }

  /** Committed events from the store; only this business's decisions and list changes are kept. */
  offer(event: StoredEvent): void {
    if (this.#stopped || event.position <= this.#liveAfter || !HANDLED.has(event.type)) return;
    this.#queue.push(event);
    if (this.#ready) this.#drain();
  }

  /** Builds the candidate's state from the log up to afterPosition, then evaluates the log up to the hand-off. */
  async #start(): Promise<void> {
    const { store, db } = this.deps;
    const { businessId, afterPosition } = this.spec;
    let last = 0;
    let n = 0;
    for await (const d of storedDecisions(store, db, businessId, afterPosition, { lists: this.#lists })) {
      this.#replayer.record(d);
      last = d.position;
      if (++n % PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    // List changes after the last decision, up to afterPosition, then everything up to the hand-off.
    for await (const e of store.iterateAll({ after: last, types: ['TransactionDecided', ...LIST_EVENT_TYPES] })) {
      if (e.position > this.#liveAfter) break;
      if (e.metadata.businessId !== businessId) continue;
      if (e.position <= afterPosition) {
        if (e.type !== 'TransactionDecided') applyListEvent(this.#lists, { type: e.type, data: e.data } as MonitoringEvent);
      } else await this.#apply(e);
      if (this.#stopped) return;
    }
    this.#ready = true;
    this.#drain();
  }

  #drain(): void {
    if (this.#draining || this.#queue.length === 0) return;
    this.#draining = this.#evaluateQueued().finally(() => {
      this.#draining = undefined;
      // Events offered while the last turn ended.
      if (!this.#stopped) this.#drain();
    });
  }

  async #evaluateQueued(): Promise<void> {
    while (this.#queue.length > 0 && !this.#stopped) {
      await new Promise((resolve) => setImmediate(resolve));
      for (const e of this.#queue.splice(0, PER_TURN)) {
        await this.#apply(e);
        if (this.#stopped) break;
      }
    }
  }

  async #apply(e: StoredEvent): Promise<void> {
    if (e.type !== 'TransactionDecided') {
      applyListEvent(this.#lists, { type: e.type, data: e.data } as MonitoringEvent);
      return;
    }
    const d = loggedDecision(e);
    if (Date.parse(d.decidedAt) >= this.spec.until) return this.stop('time limit');
    const result = await this.#replayer.evaluate(d);
    this.#first ??= d.decidedAt;
    this.#last = d.decidedAt;
    if ('unreproducible' in result) this.#unreproducible++;
    else this.#count(d, e, result.outcome);
    this.#through = e.position;
    if (++this.#evaluated >= this.spec.maxDecisions) await this.stop('decision limit');
  }

  #count(d: LoggedDecision, e: StoredEvent, outcome: { action: string; fired: readonly string[]; riskScore: string }): void {
    const hour = d.decidedAt.slice(0, 13);
    let h = this.#hours.get(hour);
    if (!h) this.#hours.set(hour, (h = { hour, decisions: 0, changed: 0, hits: emptyRecord<[number, number]>() }));
    h.decisions++;
    const hits = h.hits;
    for (const id of d.fired) ownSlot(hits, id, () => [0, 0] as [number, number])[0]++;
    for (const id of outcome.fired) ownSlot(hits, id, () => [0, 0] as [number, number])[1]++;
    if (outcome.action === d.action) return;
    h.changed++;
    const pair = `${d.action}→${outcome.action}`;
    this.#transitions.set(pair, (this.#transitions.get(pair) ?? 0) + 1);
    const data = e.data as TransactionDecidedData;
    this.#changes.push({
      position: e.position,
      transactionId: data.transactionId,
      reference: data.reference,
      customer: customerOf(d.request),
      decidedAt: d.decidedAt,
      from: d.action,
      to: outcome.action,
      decidingFired: [...d.fired],
      candidateFired: [...outcome.fired],
      candidateRiskScore: outcome.riskScore,
    });
  }

  /** Records what was evaluated since the last record, as one window and its changed decisions. */
  async flush(): Promise<void> {
    if (this.#first === undefined || this.#last === undefined) return;
    const { shadowId } = this.spec;
    const events: ShadowEvent[] = [
      {
        type: 'ShadowWindowRecorded',
        data: {
          shadowId,
          throughPosition: this.#through,
          firstDecidedAt: this.#first,
          lastDecidedAt: this.#last,
          hours: [...this.#hours.values()],
          transitions: recordOf(this.#transitions),
          unreproducible: this.#unreproducible,
        },
      },
    ];
    for (let i = 0; i < this.#changes.length; i += CHANGES_PER_EVENT)
      events.push({ type: 'ShadowDecisionsChanged', data: { shadowId, changes: this.#changes.slice(i, i + CHANGES_PER_EVENT) } });
    this.#hours = new Map();
    this.#transitions = new Map();
    this.#changes = [];
    this.#unreproducible = 0;
    this.#first = undefined;
    this.#last = undefined;
    await this.deps.record(events);
  }

  /** Waits until every event handed over so far is evaluated, then records it. */
  async settle(): Promise<void> {
    await this.started;
    while (this.#draining) await this.#draining;
    await this.flush();
  }

  /** Stops evaluating; a limit reached also tells the service. What was evaluated is recorded first. */
  async stop(reason: ShadowStopReason): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#queue.length = 0;
    await this.flush();
    if (reason === 'time limit' || reason === 'decision limit') this.deps.stopped(reason);
  }

  /** The time limit, checked between decisions too (a quiet business still stops on time). */
  async tick(): Promise<void> {
    if (this.#stopped) return;
    if (this.deps.clock.now().getTime() >= this.spec.until) await this.stop('time limit');
    else await this.flush();
  }
}
