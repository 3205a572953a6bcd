// The transaction-monitoring service: instant decisions, saved devices, blacklists, stored decisions and
// backtests. In-process callers (a payment switch embedding the engine) and the HTTP routes use the same calls.
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import {
  candidateErrors,
  readRuleSources,
  watchRuleset,
  type BacktestReport,
  type Providers,
  type RuleDiagnostic,
  type RuleInfo,
  type RuleSources,
  type RulesetWatcher,
} from '../rules/index.js';
import { runBacktest, type BacktestJob, type BacktestWindow } from './backtest.js';
import { BacktestThreads } from './backtest-threads.js';
import { BacktestSlots, DEFAULT_BACKTEST_LIMITS, type BacktestLimits } from './backtest-limits.js';
import type { EventStore } from '../store/index.js';
import { LISTS, type Decision, type ListKind } from './events.js';
import { DecisionPipeline, type Actor, type CaseAlerter, type DecisionObserver, type RulesObserver, type RulesStatus } from './pipeline.js';
import type { LiveDecisions } from './live-decisions.js';
import { transactionIdByReference, type MonitoringTables } from './projection.js';
import type { DecisionStats, DecisionSummary, Party } from './decision-index.js';
import { parseInstantRequest, type InstantRequest, type SaveDeviceInput } from './request-schema.js';
import type { StateObserver } from './snapshots.js';
import { restoreAtStart, SnapshotSchedule, type SnapshotOptions } from './snapshot-schedule.js';
import { MonitoringState } from './state.js';
import { PartitionFollower, type PartitionHolding } from './partition-follow.js';
import { PartitionCounts } from '../partitions/index.js';
import type { TransactionFacts } from './transaction-facts.js';
import { StoredDecisions, type StoredTransaction } from './stored-decisions.js';
import { ListsAndDevices, type BlacklistEntry } from './lists.js';
import { validationErrorFrom } from '../validation-messages.js';
import type { DecisionRouter } from './decision-threads.js';

/** The services the monitoring service uses, by name. */
export interface MonitoringDependencies {
  db: Kysely<any>;
  store: EventStore;
  clock: Clock;
  logger: Logger;
  /** Case management: a decision that is not approved raises an alert on its subject's case (none: decisions only). */
  cases?: CaseAlerter;
  /** Screening and IP-country answers for the rules that ask. */
  providers?: Providers;
  observer?: StateObserver & DecisionObserver & RulesObserver;
  /** Decisions kept in memory for the running shadows. */
  live?: LiveDecisions;
}

export interface MonitoringOptions {
  rulesDir: string;
  /** Reload the ruleset when its files change (the server); off for one-shot CLI runs. */
  watch: boolean;
  /** History older than this is dropped, checked every `evictEveryMs` with expired velocity entries (default 400 days). */
  historyHorizonMs?: number;
  evictEveryMs?: number;
  /** State snapshots (none: every start replays the whole log). */
  snapshots?: SnapshotOptions;
  /** The partition count of a business the log records none for (PARTITIONS, default 64). */
  partitions?: number;
  /**
   * Backtests: how many may run at once, the log's database file their threads read (none: in this thread), and
   * the data directory holding imported screening lists' records (none: scores a decision did not record are unknown).
   */
  backtests?: Partial<BacktestLimits> & { dbPath?: string; dataDir?: string };
}

export type { BlacklistEntry } from './lists.js';
export type { StoredTransaction } from './stored-decisions.js';

export class MonitoringService {
  readonly #db: Kysely<MonitoringTables>;
  readonly #stored: StoredDecisions;
  readonly #lists: ListsAndDevices;
  readonly #pipeline: DecisionPipeline;
  readonly #counts: PartitionCounts;
  private readonly store: EventStore;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly observer: (StateObserver & DecisionObserver & RulesObserver) | undefined;
  readonly state: MonitoringState;
  private readonly watcher: RulesetWatcher;
  private readonly options: MonitoringOptions;
  #evictTimer: NodeJS.Timeout | undefined;
  #unsubscribe: (() => void) | undefined;
  #follower: PartitionFollower | undefined;
  #router: DecisionRouter | undefined;
  #swapping: Promise<void> = Promise.resolve();
  #rulesStatus: RulesStatus = { version: '', loadedAt: '', lastReloadError: null };
  #snapshots!: SnapshotSchedule;
  readonly #backtests: BacktestSlots;
  /** Where backtests run when the log is a file: threads of their own, kept between backtests. */
  readonly #backtestThreads: BacktestThreads | undefined;

  private constructor(
    deps: MonitoringDependencies,
    state: MonitoringState,
    watcher: RulesetWatcher,
    options: MonitoringOptions,
    counts: PartitionCounts,
  ) {
    this.#db = deps.db;
    this.#counts = counts;
    this.store = deps.store;
    this.clock = deps.clock;
    this.logger = deps.logger;
    this.observer = deps.observer;
    this.state = state;
    this.watcher = watcher;
    this.options = options;
    this.#backtests = new BacktestSlots({
      perBusiness: options.backtests?.perBusiness ?? DEFAULT_BACKTEST_LIMITS.perBusiness,
      total: options.backtests?.total ?? DEFAULT_BACKTEST_LIMITS.total,
    });
    const dbPath = options.backtests?.dbPath;
    this.#backtestThreads = dbPath ? new BacktestThreads(dbPath) : undefined;
    this.#pipeline = new DecisionPipeline({
      state,
      store: deps.store,
      references: transactionIdByReference(deps.db),
      clock: deps.clock,
      providers: deps.providers ?? {},
      cases: deps.cases,
      observer: deps.observer,
      live: deps.live,
      partitions: counts,
    });
    this.#stored = new StoredDecisions(deps.db, deps.store, deps.clock, (businessId, id) => this.#pipeline.stored(businessId, id));
    this.#lists = new ListsAndDevices(deps.db, deps.store);
  }

  /** Loads the ruleset, rebuilds the in-memory state from the log, then follows the log. */
  static async start(deps: MonitoringDependencies, options: MonitoringOptions): Promise<MonitoringService> {
    const { store, clock, logger, observer } = deps;
    let service: MonitoringService | undefined;
    const watcher = await watchRuleset(options.rulesDir, {
      onSwap: (next) => {
        if (service) service.#swapping = service.#swap(next);
      },
      onError: (errors) => {
        logger.error({ errors }, 'changed ruleset refused; the previous ruleset keeps serving');
        if (service) service.#reloadFailed(errors);
      },
    });
    if (!options.watch) watcher.close();
    const state = new MonitoringState(watcher.current(), options.historyHorizonMs);
    const started = performance.now();
    const restored = await restoreAtStart(state, store, options.snapshots, logger);
    await state.rebuild(store, clock.now().getTime());
    const snapshotPosition = restored && 'position' in restored ? restored.position : null;
    const head = store.notifiedPosition;
    const ms = performance.now() - started;
    logger.info({ snapshotPosition, head, ms: Math.round(ms) }, 'monitoring state rebuilt');
    observer?.stateRebuilt({ fromSnapshot: snapshotPosition !== null, seconds: ms / 1000 });
    service = new MonitoringService(deps, state, watcher, options, await PartitionCounts.load(store, options.partitions));
    const s = service;
    s.#rulesStatus = { version: state.ruleset.version, loadedAt: clock.now().toISOString(), lastReloadError: null };
    observer?.rulesChanged(s.#rulesStatus);
    s.#snapshots = new SnapshotSchedule(
      options.snapshots,
      { state, store, clock, logger, rulesDir: options.rulesDir, observer },
      snapshotPosition ?? 0,
    );
    s.#unsubscribe = store.subscribe((events) => {
      state.apply(events);
      s.#snapshots.committed();
    });
    service.#evictTimer = setInterval(() => state.evict(clock.now().getTime()), options.evictEveryMs ?? 60_000);
    service.#evictTimer.unref();
    return service;
  }

  get rulesetVersion(): string {
    return this.state.ruleset.version;
  }

  /** The ruleset in force, since when, and the last refused reload (kept until a reload succeeds). */
  get rulesStatus(): RulesStatus {
    return this.#rulesStatus;
  }

  #reloadFailed(errors: readonly string[]): void {
    this.#rulesStatus = { ...this.#rulesStatus, lastReloadError: { at: this.clock.now().toISOString(), errors: [...errors] } };
    this.observer?.rulesChanged(this.#rulesStatus);
  }

  /** Validates an instant-decision body as the HTTP route does; throws ValidationError naming the field. */
  static parseRequest(input: unknown): InstantRequest {
    const parsed = parseInstantRequest(input);
    if (!parsed.success) throw validationErrorFrom(parsed.error, input);
    return parsed.data;
  }

  /** The instant decision for an unvalidated body (in-process callers and the HTTP route). */
  async decide(actor: Actor, input: unknown): Promise<Decision> {
    const request = MonitoringService.parseRequest(input);
    return this.#router ? this.#router.decide(actor, request) : this.#pipeline.decide(actor, request);
  }

  /** A body the engine's thread validated, decided here (a deciding thread). */
  decideParsed(actor: Actor, request: InstantRequest): Promise<Decision> {
    return this.#pipeline.decide(actor, request);
  }

  /** Decisions are made by `router`'s threads from now on (decision-threads.ts). */
  decideIn(router: DecisionRouter): void {
    this.#router = router;
  }

  getTransaction(businessId: string, transactionId: string): Promise<StoredTransaction> {
    return this.#stored.byId(businessId, transactionId);
  }

  /** Every stored decision of the business, in log order, read a page at a time (the reports' daily batches). */
  transactions(businessId: string): AsyncGenerator<StoredTransaction> {
    return this.#stored.all(businessId);
  }

  /** The facts of many decisions at once (a page of alerts), by transaction id. */
  transactionFacts(businessId: string, transactionIds: readonly string[]): Promise<Map<string, TransactionFacts>> {
    return this.#stored.facts(businessId, transactionIds);
  }

  /** The log position of a stored decision's event, for its inclusion proof. */
  decisionPosition(businessId: string, transactionId: string): Promise<number> {
    return this.#stored.position(businessId, transactionId);
  }

  /** Saves a customer's device; it then counts as known for that customer (anonymizedUserData.uniqueId). */
  saveDevice(actor: Actor, input: SaveDeviceInput): Promise<{ changed: boolean }> {
    return this.#lists.saveDevice(actor, input);
  }

  /** Adds an entry; adding one already listed changes nothing and reports `added: false`. */
  addToBlacklist(actor: Actor, list: ListKind, value: string): Promise<{ added: boolean }> {
    return this.#lists.add(actor, list, value);
  }

  /** Removes an entry; throws NotFoundError when it is not listed. */
  removeFromBlacklist(actor: Actor, list: ListKind, value: string): Promise<void> {
    return this.#lists.remove(actor, list, value);
  }

  listBlacklist(
    businessId: string,
    list: ListKind,
    page: { page: number; limit: number },
  ): Promise<{ entries: BlacklistEntry[]; total: number }> {
    return this.#lists.list(businessId, list, page);
  }

  static listLabel(list: ListKind): string {
    return LISTS[list].label;
  }

  /** The stored decision of a reference, or undefined when the reference was never decided for the business. */
  transactionByReference(businessId: string, reference: string): Promise<StoredTransaction | undefined> {
    return this.#stored.byReference(businessId, reference);
  }

  /** A user's, account's (as sender or receiver) or device's decisions, newest first (at most 200). */
  decisionsOf(businessId: string, party: Party, limit = 50): Promise<DecisionSummary[]> {
    return this.#stored.ofParty(businessId, party, limit);
  }

  /** The business's decisions of the last `hours` hours (default 24): how many, per action and per fired rule. */
  decisionStats(businessId: string, hours = 24): Promise<DecisionStats> {
    return this.#stored.stats(businessId, hours);
  }

  /** The ruleset deciding now: its version, files and rules. */
  rulesInForce(): { version: string; files: string[]; rules: readonly RuleInfo[] } {
    const { version, rules } = this.state.ruleset;
    return { version, files: [...new Set(rules.map((r) => r.file))].sort(), rules };
  }

  /** The rule and list files in force, as a candidate starts from them. */
  ruleSources(): Promise<RuleSources> {
    return readRuleSources(this.options.rulesDir);
  }

  /** The checker's errors for candidate sources (file, line, column, message); none when they compile. */
  checkCandidate(sources: RuleSources): readonly RuleDiagnostic[] {
    return candidateErrors(sources);
  }

  /**
   * Replays this business's stored decisions through candidate rules, each against the world at its position in
   * the log (backtest.ts), in a thread of its own when the log is a file. Throws BusyError when the business, or
   * the engine, runs as many backtests as it may.
   */
  backtest(businessId: string, sources: RuleSources, window: BacktestWindow = {}): Promise<BacktestReport> {
    return this.#backtests.run(businessId, async () => {
      const job: BacktestJob = {
        businessId,
        sources,
        window,
        upTo: this.store.notifiedPosition,
        historyHorizonMs: this.options.historyHorizonMs,
        dataDir: this.options.backtests?.dataDir,
      };
      return this.#backtestThreads ? this.#backtestThreads.run(job) : runBacktest(this.store, this.#db, job);
    });
  }

  /** Businesses that have decisions in memory, for running a backtest of each (the CLI). */
  businessIds(): string[] {
    return [...this.state.businesses.keys()];
  }

  async #swap(next: ReturnType<RulesetWatcher['current']>): Promise<void> {
    const started = performance.now();
    try {
      const snapshots = this.options.snapshots;
      // The snapshot thread's connection to the log serves the rebuild thread too; an in-memory log has none.
      const thread = snapshots && { dbPath: snapshots.dbPath, rulesDir: this.options.rulesDir };
      const { rebuilt, threadFailure, holds } = await this.state.swap(next, this.store, this.clock.now().getTime(), thread);
      if (threadFailure) this.logger.warn({ version: next.version, reason: threadFailure }, 'ruleset state rebuilt on the deciding thread');
      this.logger.info({ version: next.version, rebuilt, ms: Math.round(performance.now() - started), holds }, 'ruleset reloaded');
      this.#rulesStatus = { version: next.version, loadedAt: this.clock.now().toISOString(), lastReloadError: null };
      this.observer?.rulesChanged(this.#rulesStatus);
    } catch (err) {
      this.logger.error({ err, version: next.version }, 'ruleset swap failed; the previous ruleset keeps serving');
      this.#reloadFailed([`ruleset ${next.version} could not be applied: ${(err as Error).message}`]);
    }
  }

  /** Reloads the rules directory now (tests, and callers that manage files themselves). */
  async reloadRules(): Promise<boolean> {
    const [swapped] = await Promise.all([this.watcher.reload(), this.#router?.reload()]);
    await this.#swapping;
    return swapped;
  }

  /** Writes a snapshot of the live state now (decisions wait while it is taken); resolves once it is on disk. */
  writeSnapshot(): Promise<void> {
    return this.#snapshots.writeNow();
  }

  /** Holds and decides only the partitions `holding` leases to this node (several nodes on PostgreSQL). */
  followPartitions(holding: PartitionHolding): PartitionFollower {
    this.#follower = new PartitionFollower(this.state, this.store, holding, this.clock, this.logger);
    this.#pipeline.decideFollowed(this.#follower);
    return this.#follower;
  }

  /** Stops following the log, after a snapshot unless the last one is recent (SnapshotSchedule.close), and the backtest threads. */
  async close(): Promise<void> {
    await this.#router?.close();
    this.#follower?.close();
    this.#counts.close();
    clearInterval(this.#evictTimer);
    await this.#backtestThreads?.close();
    await this.#snapshots.close();
    this.#unsubscribe?.();
    this.watcher.close();
  }
}
