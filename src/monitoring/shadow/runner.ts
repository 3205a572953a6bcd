// One running shadow: the candidate fed the business's decisions after they commit, in log order, each through
// the same Replayer a backtest uses (src/rules/backtest.ts): its recorded features first, then the state the
// decisions before it built. So a shadow changes exactly the decisions a backtest of the same candidate over the
// same traffic would, and a shadow of the deciding ruleset changes none. Nothing it does is on the answer's path:
// the store hands it committed events, which it queues and evaluates on later turns of the event loop.
// Only the candidate's rules that differ from the deciding ruleset's are evaluated, and only their features kept:
// an identical rule read the same request and features live, so whether it fired is the deciding evaluation's.
// Decisions made here come from memory (live-decisions.ts); only those of other processes are parsed from the log.
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import type { CompiledRuleset, Evaluation, Observation, Outcome } from '../../rules/index.js';
import { MemoryLists, type Providers, Replayer } from '../../rules/index.js';
import type { EventStore, StoredEvent } from '../../store/index.js';
import { decisionAt, type LoggedDecision, storedDecisions } from '../backtest.js';
import { applyListEvent } from '../business-state.js';
import { toDecision } from '../decision.js';
import type { MonitoringEvent, TransactionDecidedData } from '../events.js';
import type { LiveDecision, LiveDecisions } from '../live-decisions.js';
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
  /** The ruleset deciding now: the candidate is compared with it until a decision shows another. */
  deciding(): CompiledRuleset;
  /** The decisions this process makes, in memory (none: every decision is parsed from its event). */
  live?: LiveDecisions;
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

/** How the candidate is evaluated beside one deciding ruleset. */
interface Plan {
  /** The deciding ruleset's version. */
  readonly version: string;
  /** The candidate's rules identical to the deciding ruleset's: they fired if they fired live. */
  readonly same: ReadonlySet<string>;
  /** The candidate's other rules, evaluated on their own. */
  readonly differing: readonly string[];
  /** A ruleset of only those rules, with their own velocity and history (none: every rule is the same). */
  readonly replayer: Replayer<LoggedDecision> | undefined;
}

interface Queued {
  readonly event: StoredEvent;
  readonly live: LiveDecision | undefined;
}

const NOT_OBSERVED: readonly Observation[] = [];

export class ShadowRunner {
  readonly #lists = new MemoryLists();
  #plan: Plan;
  readonly #queue: Queued[] = [];
  readonly #unfollow: (() => void) | undefined;
  /** How often each of the candidate's rules was evaluated on its own. */
  readonly #evaluations = new Map<string, number>();
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
  /** The last record's append. */
  #recording: Promise<void> = Promise.resolve();
  readonly started: Promise<void>;

  constructor(
    readonly spec: RunnerSpec,
    private readonly deps: RunnerDeps,
  ) {
    this.#evaluated = spec.evaluated;
    this.#through = spec.afterPosition;
    this.#liveAfter = deps.store.notifiedPosition;
    this.#unfollow = deps.live?.follow(spec.businessId);
    this.#plan = this.#planFor(deps.deciding(), undefined);
    this.started = this.#start();
  }

  /** Compares the candidate with `deciding`; the differing rules' state continues from the last plan's. */
  #planFor(deciding: CompiledRuleset, last: Plan | undefined): Plan {
    const { candidate } = this.spec;
    const same = new Set<string>();
    if (deciding.schema === candidate.schema)
      for (const [id, identity] of candidate.identities) if (deciding.identities.get(id) === identity) same.add(id);
    const differing = candidate.rules.filter((r) => !same.has(r.id)).map((r) => r.id);
    const { providers, historyHorizonMs } = this.deps;
    const replayer =
      differing.length === 0
        ? undefined
        : new Replayer(
            candidate.only(new Set(differing)),
            {
              lists: this.#lists,
              screeningScore: providers.screeningScore,
              ipCountry: providers.ipCountry,
              historyHorizonMs,
              finish: (d, evaluation) => this.#outcome(d, same, evaluation),
            },
            last?.replayer,
          );
    return { version: deciding.version, same, differing, replayer };
  }

  /**
   * The candidate's outcome: its identical rules fired as they fired live, its others as evaluated; the engine's
   * blacklist stop applies as it did live, on the hits the decision recorded.
   */
  #outcome(d: LoggedDecision, same: ReadonlySet<string>, differing: Evaluation | undefined): Outcome {
    const { candidate } = this.spec;
    const fired = new Map<string, readonly Observation[]>();
    for (const id of d.fired) if (same.has(id)) fired.set(id, NOT_OBSERVED);
    if (differing) for (const f of differing.fired) fired.set(f.id, f.observed);
    const decision = toDecision('', candidate, candidate.concluded(fired), d.blacklistHits);
    return { action: decision.action.result, fired: decision.ruleResult?.map((r) => r.id) ?? [], riskScore: decision.riskScore };
  }

  /** The plan for a decision of ruleset `version`; none when it is neither the last one's nor known here. */
  #planOf(version: string, live: LiveDecision | undefined): Plan | undefined {
    if (this.#plan.version === version) return this.#plan;
    if (live?.ruleset.version !== version) return undefined;
    this.#plan = this.#planFor(live.ruleset, this.#plan);
    return this.#plan;
  }

  /** How often each of the candidate's rules was evaluated on its own rather than taken from the deciding evaluation. */
  get evaluations(): ReadonlyMap<string, number> {
    return this.#evaluations;
  }

  get stoppedAlready(): boolean {
    return this.#stopped;
  }

  /** Committed events from the store; only this business's decisions and list changes are kept. */
  offer(event: StoredEvent): void {
    if (this.#stopped || event.position <= this.#liveAfter || !HANDLED.has(event.type)) return;
    const live = event.type === 'TransactionDecided' ? this.deps.live?.committed(event.streamId) : undefined;
    this.#queue.push({ event, live });
    if (this.#ready) this.#drain();
  }

  /** Builds the candidate's state from the log up to afterPosition, then evaluates the log up to the hand-off. */
  async #start(): Promise<void> {
    const { store, db } = this.deps;
    const { businessId, afterPosition } = this.spec;
    let last = 0;
    let n = 0;
    for await (const d of storedDecisions(store, db, businessId, afterPosition, { lists: this.#lists })) {
      this.#plan.replayer?.record(d);
      last = d.position;
      if (++n % PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    // List changes after the last decision, up to afterPosition, then everything up to the hand-off.
    for await (const e of store.iterateAll({ after: last, types: ['TransactionDecided', ...LIST_EVENT_TYPES] })) {
      if (e.position > this.#liveAfter) break;
      if (e.metadata.businessId !== businessId) continue;
      if (e.position <= afterPosition) {
        if (e.type !== 'TransactionDecided') applyListEvent(this.#lists, { type: e.type, data: e.data } as MonitoringEvent);
      } else await this.#apply(e, undefined);
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
      for (const q of this.#queue.splice(0, PER_TURN)) {
        await this.#apply(q.event, q.live);
        if (this.#stopped) break;
      }
    }
  }

  async #apply(e: StoredEvent, live: LiveDecision | undefined): Promise<void> {
    if (e.type !== 'TransactionDecided') {
      applyListEvent(this.#lists, { type: e.type, data: e.data } as MonitoringEvent);
      return;
    }
    const data = live?.data ?? (e.data as TransactionDecidedData);
    const d = decisionAt(e.position, data);
    if (Date.parse(d.decidedAt) >= this.spec.until) return this.stop('time limit');
    this.#first ??= d.decidedAt;
    this.#last = d.decidedAt;
    const plan = this.#planOf(d.rulesetVersion, live);
    if (!plan) {
      // Decided by a ruleset this process does not hold (another node's): nothing to compare the candidate with.
      this.#unreproducible++;
      this.#plan.replayer?.record(d);
    } else if (plan.replayer) {
      for (const id of plan.differing) this.#evaluations.set(id, (this.#evaluations.get(id) ?? 0) + 1);
      const result = await plan.replayer.evaluate(d);
      if ('unreproducible' in result) this.#unreproducible++;
      else this.#count(d, data, e.position, result.outcome);
    } else this.#count(d, data, e.position, this.#outcome(d, plan.same, undefined));
    this.#through = e.position;
    if (++this.#evaluated >= this.spec.maxDecisions) await this.stop('decision limit');
  }

  #count(d: LoggedDecision, data: TransactionDecidedData, position: number, outcome: Outcome): void {
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
    this.#changes.push({
      position,
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

  /**
   * Records what was evaluated since the last record, as one window and its changed decisions. Records are made one
   * after another: a flush (settle's) that finds nothing new still waits for one under way (the timer's) to be appended.
   */
  flush(): Promise<void> {
    const next = this.#recording.then(() => this.#record());
    this.#recording = next.catch(() => undefined);
    return next;
  }

  async #record(): Promise<void> {
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
    this.#unfollow?.();
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
