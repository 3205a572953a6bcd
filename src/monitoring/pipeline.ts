// The instant decision path: idempotency check → features from memory → compiled ruleset → decision →
// one append (the decision, plus its alert on the subject's case when it is not approved) → answer.
import type { Clock } from '../clock.js';
import { BusyError, ConflictError, ValidationError } from '../errors.js';
import type { Providers, Severity } from '../rules/index.js';
import { ExpectedVersionConflictError, StaleControlError, type EventStore, type StreamWrite } from '../store/index.js';
import { sameBody } from './canonical.js';
import { encodeDecided } from './compact-decision.js';
import { toDecision } from './decision.js';
import { newTransactionId, referenceKey, transactionStream, type Decision, type TransactionDecidedData } from './events.js';
import { RecordingContext } from './features.js';
import type { LiveDecisions } from './live-decisions.js';
import type { PartitionCounts } from '../partitions/index.js';
import type { PartitionFollower } from './partition-follow.js';
import type { InstantRequest } from './request-schema.js';
import type { MonitoringState } from './state.js';

export interface Actor {
  businessId: string;
  userId?: string;
  requestId?: string;
}

/**
 * What case management offers: the writes that add the alert of a decision that is not approved to its subject's
 * case (or open one), to commit with the decision.
 */
export interface CaseAlerter {
  alertWrites(input: {
    businessId: string;
    subjects: {
      user?: { id: string; name: string };
      account?: { id: string; name: string };
      transaction: { id: string; name: string };
    };
    alert: {
      transactionId: string;
      reference: string;
      action: string;
      score: string;
      priority: Severity;
      rules: string[];
      decidedAt: string;
      reason: string;
    };
    description: string;
    actor?: { userId?: string };
    fresh?: boolean;
  }): Promise<{ caseId: string; reused: boolean; writes: StreamWrite[]; failed: () => void }>;
}

/** The transaction id a business's reference was decided under, if it was (the references read model). */
export type ReferenceLookup = (businessId: string, reference: string) => Promise<string | undefined>;

/** What an operator counts of the decisions (src/metrics.ts exports it to Prometheus). */
export interface DecisionObserver {
  /** A new decision was committed (an idempotent replay of a stored one is not counted again). */
  decided(result: string): void;
}

/** Which ruleset decides, and why the last change to the rules directory was refused, if it was. */
export interface RulesStatus {
  version: string;
  loadedAt: string;
  lastReloadError: { at: string; errors: string[] } | null;
}

export interface RulesObserver {
  rulesChanged(status: RulesStatus): void;
}

/**
 * Decisions refused by the control fence in a row before giving up: each means the business's lists changed
 * between deciding and committing, which takes a stream of list changes to repeat.
 */
const STALE_ATTEMPTS = 8;

interface Outcome {
  decision: Decision;
  /** The body it decided, validated or as stored. */
  request: unknown;
}

/**
 * The bodies are compared only when a reference comes again, which is rare: hashing every body up front, to
 * store and compare the hash, cost each decision ~5 µs of the deciding thread. A decision just made for this
 * very request is the common case, and needs no comparison.
 */
const sameRequest = (outcome: Outcome, request: InstantRequest): Decision => {
  if (outcome.request !== request && !sameBody(outcome.request, request)) {
    const { reference } = request.transactionData;
    throw new ConflictError(`transactionData.reference ${reference} was already used for a different transaction`);
  }
  return outcome.decision;
};

/** What the instant path reads and writes: passed once, by name, by the monitoring service. */
export interface PipelineDependencies {
  /** Features, velocity windows and lists in memory, and the live ruleset. */
  state: MonitoringState;
  store: EventStore;
  /** Finds a reference decided before (the references read model), for idempotent replays. */
  references: ReferenceLookup;
  clock: Clock;
  /** Screening and IP-country answers for the rules that ask. */
  providers: Providers;
  /** Case management, when it is part of the engine: a decision that is not approved raises an alert on a case. */
  cases?: CaseAlerter;
  observer?: DecisionObserver;
  /** Decisions handed to the running shadows in memory (none: a shadow parses their events). */
  live?: LiveDecisions;
  /** Each business's partition count: every decision's metadata carries its partition, leased or not. */
  partitions: PartitionCounts;
}

export class DecisionPipeline {
  /** Decisions being made right now, by business and reference: a concurrent duplicate waits for the first. */
  readonly #running = new Map<string, Promise<Outcome>>();
  private readonly state: MonitoringState;
  private readonly store: EventStore;
  private readonly references: ReferenceLookup;
  private readonly clock: Clock;
  private readonly providers: Providers;
  private readonly cases: CaseAlerter | undefined;
  private readonly observer: DecisionObserver | undefined;
  private readonly live: LiveDecisions | undefined;
  readonly #counts: PartitionCounts;
  #partitions: PartitionFollower | undefined;

  constructor(deps: PipelineDependencies) {
    this.state = deps.state;
    this.store = deps.store;
    this.references = deps.references;
    this.clock = deps.clock;
    this.providers = deps.providers;
    this.cases = deps.cases;
    this.observer = deps.observer;
    this.live = deps.live;
    this.#counts = deps.partitions;
  }

  /** From now on, decides only the partitions whose state `partitions` holds here (several nodes leasing them). */
  decideFollowed(partitions: PartitionFollower): void {
    this.#partitions = partitions;
  }

  async decide(actor: Actor, request: InstantRequest): Promise<Decision> {
    const reference = request.transactionData.reference;
    // SQLite stores text as UTF-8, where every lone surrogate becomes U+FFFD: two such references would be one in
    // the references read model, and the second would be answered with the first's decision.
    if (!(reference as string & { isWellFormed(): boolean }).isWellFormed()) {
      throw new ValidationError(
        'transactionData.reference must be well-formed Unicode: it holds a lone surrogate',
        'transactionData.reference',
      );
    }
    const key = `${actor.businessId}\u0000${reference}`;
    for (;;) {
      const running = this.#running.get(key);
      if (running) {
        const first = await running.catch(() => undefined);
        if (first) return sameRequest(first, request);
        continue;
      }
      const attempt = this.#decideOnce(actor, request, 1);
      this.#running.set(key, attempt);
      try {
        return sameRequest(await attempt, request);
      } finally {
        this.#running.delete(key);
      }
    }
  }

  /** The stored decision of a transaction id, with its request. */
  async stored(businessId: string, transactionId: string): Promise<(Outcome & { data: TransactionDecidedData }) | undefined> {
    const [event] = await this.store.readStream(transactionStream(businessId, transactionId));
    if (!event) return undefined;
    const data = event.data as TransactionDecidedData;
    return { decision: data.decision, request: data.request, data };
  }

  async #storedByReference(businessId: string, reference: string): Promise<Outcome | undefined> {
    const transactionId = await this.references(businessId, reference);
    return transactionId === undefined ? undefined : this.stored(businessId, transactionId);
  }

  /**
   * `attempt`: with several nodes, the business's lists may change on another node between deciding and committing;
   * the store then refuses the append (StaleControlError) once it has told this node's state of the change, and the
   * decision is taken out of the state and made again from it.
   */
  async #decideOnce(actor: Actor, request: InstantRequest, attempt: number): Promise<Outcome> {
    const { businessId } = actor;
    const reference = request.transactionData.reference;
    const key = referenceKey(businessId, reference);
    const previous = this.state.decided.mayHave(key) ? await this.#storedByReference(businessId, reference) : undefined;
    if (previous) return previous;
    // Where nodes lease partitions: decided only once this node holds the partition's state (partition-follow.ts).
    let leased = this.#partitions?.partition(businessId, request);
    if (leased instanceof Promise) leased = await leased;
    // Computed here, once: the read models key their rows by the metadata's partition rather than hash it again. A
    // node that leases leaves a business the leases do not divide (no count recorded) without: its rows come whole
    // to every node, as each decides it.
    const partition = this.#partitions ? leased : this.#counts.partitionOf(businessId, request);
    // Last before the state is read: a pause (a snapshot, a swap, a partition's state built) may have begun meanwhile.
    await this.state.ready;

    const now = this.clock.now();
    const at = now.getTime();
    const transactionId = newTransactionId(key, at);
    const ruleset = this.state.ruleset;
    // The state holds every event up to here, lists included: the position the append is fenced at.
    const madeAt = this.store.notifiedPosition;
    const business = this.state.business(businessId);
    const ctx = new RecordingContext(this.providers, business, ruleset, request, at);
    const { used } = ctx;
    const env = ruleset.env(request, ctx);
    const evaluation = ruleset.evaluateEnv(env);
    const decision = toDecision(transactionId, ruleset, evaluation, used.blacklistHits, ruleset.missingFields(request));
    // Recorded before the append, in the same tick as the evaluation, so the next request sees this one.
    const recordedHere = this.state.recordLocal(businessId, key, env, at);
    let recorded = false;
    const data: TransactionDecidedData = {
      transactionId,
      reference,
      request,
      decidedAt: now.toISOString(),
      rulesetVersion: ruleset.version,
      features: used,
      decision,
      caseId: null,
    };
    const stream = transactionStream(businessId, transactionId);
    const live = this.live?.follows(businessId) ? this.live : undefined;
    live?.decided(stream, { data, ruleset });
    try {
      await this.#append(actor, request, stream, data, ruleset.schema.actions[0]!.name, madeAt, partition, leased !== undefined);
      recorded = true;
      this.observer?.decided(decision.action.result);
      return { decision, request };
    } catch (error) {
      // Another process decided this reference first: the references read model refused this append, or, when
      // that was in the same second, the log refused a second start of the same stream (a ConflictError too).
      // Its decision stands in for the one recorded above, and the state knows it by the same reference key.
      if (error instanceof ConflictError) {
        const winner = await this.#storedByReference(businessId, reference);
        if (winner) {
          recorded = true;
          return winner;
        }
      }
      if (!(error instanceof StaleControlError)) throw error;
    } finally {
      live?.settled(stream);
      this.state.settled(businessId, key, recorded, recordedHere);
    }
    // Refused as stale, and taken out of the state above: made again from the state that now has the change.
    if (attempt < STALE_ATTEMPTS) return this.#decideOnce(actor, request, attempt + 1);
    throw new BusyError(`the lists of business ${businessId} changed during each of ${STALE_ATTEMPTS} attempts at this decision`, 1);
  }

  /** A conflict on a case stream (the subject's case changed meanwhile) is retried, reading the subject's case. */
  async #append(
    actor: Actor,
    request: InstantRequest,
    stream: string,
    data: TransactionDecidedData,
    approved: string,
    madeAt: number,
    partition: number | undefined,
    leased: boolean,
  ): Promise<void> {
    const { businessId } = actor;
    for (let attempt = 0; ; attempt++) {
      // The first attempt trusts what case management knows of the subject's case, reading nothing; a conflict
      // (another process or an investigator changed it meanwhile) proves it stale, and the retry reads it.
      const opening = data.decision.action.result === approved ? undefined : await this.#alert(actor, request, data, attempt === 0);
      const writes: StreamWrite[] = [
        {
          streamId: stream,
          events: [{ type: 'TransactionDecided', data: encodeDecided(data, opening?.caseId ?? null) }],
          expectedVersion: 'no_stream',
        },
        ...(opening?.writes ?? []),
      ];
      try {
        await this.store.appendMany(
          writes,
          {
            businessId,
            actor: actor.userId ?? 'api',
            requestId: actor.requestId,
            idempotencyKey: data.reference,
            partition,
          },
          madeAt,
          // Only a leased partition fences: nodes that each decide every partition would refuse each other's.
          leased ? 'partition' : 'business',
        );
        return;
      } catch (error) {
        opening?.failed();
        if (attempt >= 3 || !(error instanceof ExpectedVersionConflictError) || error.streamId === stream) throw error;
      }
    }
  }

  async #alert(actor: Actor, request: InstantRequest, data: TransactionDecidedData, fresh: boolean) {
    const cases = this.cases;
    if (!cases) return undefined;
    const { decision, reference } = data;
    const rules = decision.ruleResult?.map((r) => r.id) ?? [];
    const user = request.anonymizedUserData?.uniqueId;
    const account = request.transactionData.senderAccount;
    return cases.alertWrites({
      businessId: actor.businessId,
      subjects: {
        ...(user ? { user: { id: user, name: request.anonymizedUserData?.name || user } } : {}),
        ...(account ? { account: { id: account, name: account } } : {}),
        transaction: { id: decision.transactionId, name: reference },
      },
      alert: {
        transactionId: decision.transactionId,
        reference,
        action: decision.action.result,
        score: decision.riskScore,
        priority: decision.reason.severity,
        rules,
        decidedAt: data.decidedAt,
        reason: decision.reason.message,
      },
      description: `Opened by transaction ${reference} ${decision.action.result}: ${decision.reason.message}. Risk score ${decision.riskScore}; rules fired: ${rules.join(', ') || 'none'}.`,
      actor: { userId: actor.userId },
      fresh,
    });
  }
}
