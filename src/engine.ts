import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { AuditService, defaultOrigin } from './audit/index.js';
import { ScreeningService } from './screening/index.js';
import { AuthService, checkBusinessId } from './auth/index.js';
import { ApprovalService } from './approvals/index.js';
import { registerApprovalEffects } from './approvals/effects.js';
import { CaseService } from './cases/index.js';
import { CddService } from './cdd/index.js';
import { keepRawInStreamIds } from './stream-ids.js';
import { holdDataDir } from './data-dir-lock.js';
import { systemClock, type Clock } from './clock.js';
import { type Logger, stderrLogger } from './logger.js';
import { Metrics } from './metrics.js';
import { decisionAnswer, LiveDecisions, MonitoringService, type Decision } from './monitoring/index.js';
import { PartitionService } from './partitions/index.js';
import type { ProjectionRegistry } from './projections/index.js';
import { openLog } from './open-log.js';
import { SqliteRegistry } from './registry/index.js';
import { ReportService } from './reports/index.js';
import { RulePerformance } from './monitoring/rule-performance/index.js';
import { ShadowService } from './monitoring/shadow/index.js';
import { HISTORY_HORIZON_MS } from './monitoring/state.js';
import { DecisionThreads, decisionThreadsRefusal, holdNoPartition } from './monitoring/decision-threads.js';
import { BUNDLED_RULES_DIR } from './package-files.js';
import { type Backend, EventStore, openSecrets, type StorageHealth } from './store/index.js';
import { LogTail } from './store/log-tail.js';
import { UploadService } from './uploads/index.js';
import { SCRYPT_N_FLOOR, scryptCostProblem, SignInService, UserService } from './users/index.js';
import { WebhookService } from './webhooks/index.js';
import type { EngineOptions } from './engine-options.js';

export type { EngineOptions };

export interface Engine {
  readonly options: Readonly<EngineOptions>;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly db: Kysely<any>;
  /** Where the log and read models are: domain code never asks, operators (/healthz) do. */
  readonly backend: Backend;
  readonly nodeId: string;
  readonly store: EventStore;
  /** Whether writes are failing for lack of space (a full disk): /healthz reports it, writes answer 503. */
  readonly storage: StorageHealth;
  readonly projections: ProjectionRegistry;
  readonly auth: AuthService;
  readonly users: UserService;
  /** People's passwords and console sessions. */
  readonly signIn: SignInService;
  readonly cases: CaseService;
  readonly uploads: UploadService;
  readonly webhooks: WebhookService;
  readonly screening: ScreeningService;
  readonly cdd: CddService;
  /** The embedded identity and company registry (reference data, not events). */
  readonly registry: SqliteRegistry;
  /** Instant transaction decisions, devices and blacklists (src/monitoring). */
  readonly monitoring: MonitoringService;
  /** The business's four-eyes policy and its pending requests. */
  readonly approvals: ApprovalService;
  /** goAML reports to the FIU: STRs from cases closed as reported and daily threshold batches (src/reports). */
  readonly reports: ReportService;
  /** Each rule's hits, alerts, cases and their dispositions over a period, from the log (src/monitoring/rule-performance). */
  readonly rulePerformance: RulePerformance;
  /** Candidate rulesets evaluated on live decisions without acting (src/monitoring/shadow). */
  readonly shadows: ShadowService;
  /** The verifiable log: Merkle tree, signed tree heads, inclusion and consistency proofs (src/audit). */
  readonly audit: AuditService;
  /** Each business's partition count, fixed at set-up (src/partitions). */
  readonly partitions: PartitionService;
  /**
   * The instant decision in-process: `engine.monitoring.decide` for the business `businessId` (default 'default'),
   * which must pass checkBusinessId; `missingFeatures: true` keeps that list in the answer, as `?missingFeatures=true` does.
   */
  decide(tx: unknown, options?: { businessId?: string; missingFeatures?: boolean }): Promise<Decision>;
  close(): Promise<void>;
}

/**
 * Builds the whole engine: the log, its read models, and the domain services over them. The HTTP server
 * is one adapter over this object; a payment switch can embed it and call it directly.
 */
export async function createEngine(options: EngineOptions): Promise<Engine> {
  const clock = options.clock ?? systemClock;
  const rulesDir = options.rulesDir ?? BUNDLED_RULES_DIR;
  const logger = options.logger ?? stderrLogger();
  const nodeId = options.nodeId ?? `${hostname()}-${process.pid}`;
  const scryptN = options.passwordScryptN ?? SCRYPT_N_FLOOR;
  // Refused before the data folder is held and the log opened, so nothing is left to release.
  const scryptProblem = scryptCostProblem(scryptN, options.allowWeakPasswordHash ?? false);
  if (scryptProblem) throw new Error(`passwordScryptN ${scryptProblem}, got ${scryptN}`);
  if (scryptN < SCRYPT_N_FLOOR)
    logger.warn({ passwordScryptN: scryptN }, "console passwords are hashed below OWASP's scrypt floor (2^17): for tests only");
  const decisionThreads = options.decisionThreads ?? 1;
  const threadsRefused = decisionThreadsRefusal(decisionThreads, options);
  if (threadsRefused) throw new Error(threadsRefused);
  const releaseDataDir = options.dataDir !== ':memory:' && (options.holdDataDir ?? true) ? holdDataDir(options.dataDir, logger) : () => {};
  const { db, store, projections, backend, pool, storage, path, location, writer } = await openLog({
    dataDir: options.dataDir,
    databaseUrl: options.databaseUrl,
    nodeId,
    clock,
    logger,
    writerThread: options.writerThread ?? true,
    storageProbeMs: options.storageProbeMs,
    commitIntervalMs: options.commitIntervalMs,
    fenced: decisionThreads > 1,
  });
  const metrics = new Metrics();
  if (pool) metrics.watchPool(pool);
  metrics.watchDeferred(() => store.deferredLag);
  store.setObserver(metrics);

  const auth = new AuthService(db, store, clock, options.partitions);
  const rawInStreamIds = await auth.rawInStreamIds();
  keepRawInStreamIds(rawInStreamIds);
  for (const pair of await auth.collidingBusinesses(rawInStreamIds)) {
    logger.warn(
      { businessIds: pair },
      'these businesses were made while stream ids held business ids raw, and their stream ids can collide (one id is the other plus "-..."): move one of them to a new business id',
    );
  }
  const users = new UserService(db, store, clock);
  const signIn = new SignInService(
    db,
    store,
    clock,
    (businessId, userId) => users.find(businessId, userId),
    options.consoleIdleMs,
    scryptN,
  );
  const uploads = new UploadService(db, store, clock, {
    dataDir: options.dataDir,
    publicBaseUrl: options.publicBaseUrl,
    signingSecret: options.uploadSigningSecret,
    quota: options.uploadQuota,
    storage,
  });
  const cases = new CaseService(db, store, clock, users, (businessId, key) => uploads.attachment(businessId, key));
  const webhooks = new WebhookService(db, store, clock, auth, logger, { allowInsecure: options.allowInsecureWebhooks ?? false });
  const screeningCacheDir = options.screeningCacheDir ?? (options.dataDir === ':memory:' ? undefined : join(options.dataDir, 'cache'));
  const screening = new ScreeningService(db, store, clock, logger, webhooks, options.dataDir, screeningCacheDir);
  const registry = new SqliteRegistry(db);
  await registry.seedSynthetic();
  const cdd = await CddService.create({ db, store, clock, logger, rulesDir, registry, screening, cases });
  // The instant path screens counterparties synchronously, so the lists are indexed before anything is decided.
  await screening.matcher();
  const live = new LiveDecisions();
  const snapshotPath = join(options.dataDir, 'snapshots', 'monitoring.v8');
  const monitoring = await MonitoringService.start(
    {
      db,
      store,
      clock,
      logger,
      cases,
      observer: metrics,
      live,
      providers: { screeningScore: (kind, name) => screening.bestScore(name, kind), ipCountry: options.ipCountry },
    },
    {
      rulesDir,
      watch: options.watchRules ?? true,
      partitions: options.partitions,
      snapshots:
        path === ':memory:'
          ? undefined
          : { path: snapshotPath, dbPath: location, every: options.snapshotEvery, fromLog: decisionThreads > 1 },
      // A backtest's thread reads the SQLite file on a connection of its own; elsewhere it runs here in slices.
      backtests: {
        ...options.backtests,
        dbPath: backend === 'sqlite' && path !== ':memory:' ? path : undefined,
        dataDir: options.dataDir,
      },
    },
  );

  if (decisionThreads > 1) {
    // This thread's state keeps the lists and devices; the deciding threads hold the partitions and decide.
    holdNoPartition(monitoring.state, (holding) => monitoring.followPartitions(holding));
    const threads = await DecisionThreads.start(decisionThreads, {
      store,
      writer: writer!,
      logger,
      observer: metrics,
      dbPath: path,
      dataDir: options.dataDir,
      rulesDir,
      watchRules: options.watchRules ?? true,
      snapshotPath,
      screeningCacheDir,
      nodeId,
    });
    monitoring.decideIn(threads);
  }

  const shadows = await ShadowService.start({
    store,
    db,
    clock,
    logger,
    providers: { screeningScore: (kind, name) => screening.bestScore(name, kind), ipCountry: options.ipCountry },
    historyHorizonMs: HISTORY_HORIZON_MS,
    rulesDir,
    deciding: () => monitoring.state.ruleset,
    live,
    reloadRules: () => monitoring.reloadRules(),
  });

  const approvals = new ApprovalService(db, store, clock);
  const reports = new ReportService(db, store, clock, {
    cases,
    monitoring: {
      transaction: (businessId, id) => monitoring.getTransaction(businessId, id),
    },
    customers: { find: async (businessId, idOrAccount) => (await cdd.customers.find(businessId, idOrAccount))?.doc },
    policy: { reportApprovalTakesSecondPerson: (businessId) => approvals.needsApproval(businessId, 'report.approve') },
  });

  const audit = await AuditService.start(
    {
      store,
      // The log read as written, without upcasters: proofs show an event's stored form, which its chain hash covers.
      stored: new EventStore(db, clock),
      db,
      clock,
      logger,
      outlets: {
        webhookWrites: (type, subject, payload) => webhooks.broadcastWrites(type, subject, payload),
        treeHeadSigned: (h, w) => metrics.treeHeadSigned(h, w),
      },
      secrets: openSecrets(db, options.dataDir),
    },
    {
      origin: options.auditOrigin ?? defaultOrigin(options.publicBaseUrl),
      signingKey: options.auditSigningKey,
      signingKeyFile: options.auditSigningKeyFile,
      witnesses: options.auditWitnesses,
      checkpointIntervalSeconds: options.auditCheckpointIntervalSeconds,
      edgeIntervalMs: options.auditEdgeIntervalMs,
      // A process that follows the log (a server) has the tree caught up before it answers; a command hashes on demand.
      foldIntervalMs: options.tailIntervalMs === 0 ? 0 : undefined,
    },
  );

  const tailMs = options.tailIntervalMs ?? 500;
  // On PostgreSQL other nodes' commits wake the tail as they happen; polling stays as the fallback.
  const tail = new LogTail(store, {
    intervalMs: tailMs,
    listenUrl: backend === 'postgres' && tailMs > 0 ? options.databaseUrl : undefined,
    nodeId,
    logger,
    observer: metrics,
  });
  await tail.start();
  const workerMs = options.workerIntervalMs ?? tailMs;
  if (workerMs > 0) {
    webhooks.start(workerMs);
    screening.start(workerMs);
    cdd.start(workerMs);
  }

  registerApprovalEffects(approvals, { auth, cases, cdd, monitoring, shadows });

  return {
    options,
    clock,
    logger,
    metrics,
    db,
    backend,
    nodeId,
    store,
    storage,
    projections,
    auth,
    users,
    signIn,
    cases,
    uploads,
    webhooks,
    screening,
    cdd,
    registry,
    monitoring,
    reports,
    rulePerformance: new RulePerformance(db, store, clock),
    shadows,
    partitions: new PartitionService(store),
    audit,
    approvals,
    async decide(tx, o) {
      const businessId = o?.businessId ?? 'default';
      checkBusinessId(businessId);
      return decisionAnswer(await monitoring.decide({ businessId }, tx), o?.missingFeatures ?? false);
    },
    async close() {
      await tail.close();
      await shadows.close();
      await audit.close();
      await monitoring.close();
      await cdd.close();
      await screening.close();
      await webhooks.close();
      await store.close();
      storage.close();
      await db.destroy();
      releaseDataDir();
    },
  };
}
