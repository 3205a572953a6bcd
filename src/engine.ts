import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { ScreeningService } from './screening/index.js';
import { AuthService, checkBusinessId } from './auth/index.js';
import { CaseService } from './cases/index.js';
import { CddService } from './cdd/index.js';
import { systemClock, type Clock } from './clock.js';
import { preparePrivateDir } from './file-modes.js';
import type { RateLimits } from './rate-limits.js';
import { createLogger, type Logger } from './logger.js';
import { Metrics } from './metrics.js';
import { MonitoringService, registerMonitoringUpcasters, type Decision } from './monitoring/index.js';
import { allProjections } from './projections/all.js';
import { ProjectionRegistry } from './projections/index.js';
import { migrateRegistry, SqliteRegistry } from './registry/index.js';
import { EventStore, migrateStore, openDatabase, StorageHealth, ThreadWriter, Upcasters } from './store/index.js';
import { UploadService } from './uploads/index.js';
import { UserService } from './users/index.js';
import { WebhookService } from './webhooks/index.js';

export interface EngineOptions {
  /** Folder of the SQLite file; ':memory:' keeps everything in memory (tests, trials). */
  dataDir: string;
  rulesDir?: string;
  clock?: Clock;
  logger?: Logger;
  allowInsecureWebhooks?: boolean;
  /** Base of the URLs the engine hands out (signed uploads). */
  publicBaseUrl?: string;
  /** Key of the upload URL signatures; without it one is generated once and kept in dataDir. */
  uploadSigningSecret?: string;
  /**
   * Run the log's transactions in a worker thread (default for a file database), so commits and their fsync
   * overlap with deciding instead of blocking it. In-memory databases always write inline.
   */
  writerThread?: boolean;
  /** How often to look for events appended by another process (the CLI); 0 turns it off. */
  tailIntervalMs?: number;
  /** Reload the rules directory when its files change (default true; the CLI turns it off). */
  watchRules?: boolean;
  /** How often background workers (webhook delivery, screening jobs) look for due work; 0 turns them off and
   * leaves them to explicit `runDue()` / `runPending()` calls (tests). Defaults to the tail interval. */
  workerIntervalMs?: number;
  /**
   * Events between two snapshots of the monitoring state (kept in dataDir/snapshots, written by a thread of
   * their own, and at close; a start restores the latest and replays only the log after it). Default 250,000;
   * 0 reads snapshots but never writes one (the CLI).
   */
  snapshotEvery?: number;
  /**
   * IP geolocation for the rules' `ipCountry(ip)`: the ISO 3166 alpha-2 code of an address, or undefined when
   * unknown. The engine ships no geolocation data, so without this `ipCountry` is always missing and rules on it
   * never fire. It runs on the instant path for every decision that asks, so it must answer from memory.
   */
  ipCountry?: (ip: string) => string | undefined;
  /** While writes fail for lack of space, how often the data folder is probed for room again (default 5000 ms). */
  storageProbeMs?: number;
  /**
   * Per-API-key request limits of the HTTP routes, by route class (src/rate-limits.ts); a class left out keeps its
   * default, a class set to null has none.
   */
  rateLimits?: RateLimits;
  /** HTTP decisions in progress at once before businesses take turns (default 16, 0: first come, first served). */
  decisionConcurrency?: number;
  /** Per-business upload quotas: bytes stored and reserved (default 10 GiB), pending upload URLs (default 50). */
  uploadQuota?: { bytes?: number; pendingUrls?: number };
}

export interface Engine {
  readonly options: Readonly<EngineOptions>;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly db: Kysely<any>;
  readonly store: EventStore;
  /** Whether writes are failing for lack of space (a full disk): /healthz reports it, writes answer 503. */
  readonly storage: StorageHealth;
  readonly projections: ProjectionRegistry;
  readonly auth: AuthService;
  readonly users: UserService;
  readonly cases: CaseService;
  readonly uploads: UploadService;
  readonly webhooks: WebhookService;
  readonly screening: ScreeningService;
  readonly cdd: CddService;
  /** The embedded identity and company registry (reference data, not events). */
  readonly registry: SqliteRegistry;
  /** Instant transaction decisions, devices and blacklists (src/monitoring). */
  readonly monitoring: MonitoringService;
  /**
   * The instant decision in-process: `engine.monitoring.decide` for the business `businessId` (default 'default'),
   * which must pass checkBusinessId (no '-').
   */
  decide(tx: unknown, options?: { businessId?: string }): Promise<Decision>;
  close(): Promise<void>;
}

const projectorModuleUrl = new URL(`./projections/all${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url).href;

/**
 * Builds the whole engine: the log, its read models, and the domain services over them. The HTTP server
 * is one adapter over this object; a payment switch can embed it and call it directly.
 */
export async function createEngine(options: EngineOptions): Promise<Engine> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger();
  if (options.dataDir !== ':memory:') preparePrivateDir(options.dataDir, logger);
  const path = options.dataDir === ':memory:' ? ':memory:' : join(options.dataDir, 'compliance.db');
  const { db } = openDatabase(path);
  const metrics = new Metrics();
  const projections = new ProjectionRegistry(allProjections());
  await migrateStore(db);
  await projections.migrate(db);
  const threaded = path !== ':memory:' && (options.writerThread ?? true);
  const writer = threaded ? await ThreadWriter.start({ path, projectorModule: projectorModuleUrl }) : undefined;
  const storage = new StorageHealth({ logger, dataDir: options.dataDir, probeMs: options.storageProbeMs });
  const store = new EventStore(db, clock, {
    writer,
    health: storage,
    upcasters: registerMonitoringUpcasters(new Upcasters()),
    onSubscriberError: (err) => logger.error({ err }, 'event subscriber failed'),
  });
  await projections.catchUp(db, store);
  store.setProjector(projections);
  store.setObserver(metrics);
  await store.init();

  const auth = new AuthService(db, store, clock);
  for (const pair of await auth.collidingBusinesses()) {
    logger.warn(
      { businessIds: pair },
      'these businesses were made before business ids were checked, and their stream ids can collide (one id is the other plus "-..."): move one of them to a new business id',
    );
  }
  const users = new UserService(db, store, clock);
  const uploads = new UploadService(db, store, clock, {
    dataDir: options.dataDir,
    publicBaseUrl: options.publicBaseUrl,
    signingSecret: options.uploadSigningSecret,
    quota: options.uploadQuota,
    storage,
  });
  const cases = new CaseService(db, store, clock, users, (businessId, key) => uploads.attachment(businessId, key));
  const webhooks = new WebhookService(db, store, clock, auth, logger, { allowInsecure: options.allowInsecureWebhooks ?? false });
  const screening = new ScreeningService(db, store, clock, logger, webhooks, options.dataDir);
  await migrateRegistry(db);
  const registry = new SqliteRegistry(db);
  await registry.seedSynthetic();
  const cdd = await CddService.create({ db, store, clock, logger, rulesDir: options.rulesDir ?? 'rules', registry, screening, cases });
  // The instant path screens counterparties synchronously, so the lists are indexed before anything is decided.
  await screening.matcher();
  const monitoring = await MonitoringService.start(db, store, clock, logger, {
    rulesDir: options.rulesDir ?? 'rules',
    watch: options.watchRules ?? true,
    cases: () => cases,
    snapshots:
      path === ':memory:'
        ? undefined
        : { path: join(options.dataDir, 'snapshots', 'monitoring.v8'), dbPath: path, every: options.snapshotEvery },
    observer: metrics,
    providers: { screeningScore: (kind, name) => screening.bestScore(name, kind), ipCountry: options.ipCountry },
  });

  const tailMs = options.tailIntervalMs ?? 500;
  const tail =
    tailMs > 0 ? setInterval(() => void store.catchUp().catch((err) => logger.error({ err }, 'tail failed')), tailMs) : undefined;
  tail?.unref();
  const workerMs = options.workerIntervalMs ?? tailMs;
  if (workerMs > 0) {
    webhooks.start(workerMs);
    screening.start(workerMs);
    cdd.start(workerMs);
  }

  return {
    options,
    clock,
    logger,
    metrics,
    db,
    store,
    storage,
    projections,
    auth,
    users,
    cases,
    uploads,
    webhooks,
    screening,
    cdd,
    registry,
    monitoring,
    async decide(tx, o) {
      const businessId = o?.businessId ?? 'default';
      checkBusinessId(businessId);
      return monitoring.decide({ businessId }, tx);
    },
    async close() {
      if (tail) clearInterval(tail);
      await monitoring.close();
      await cdd.close();
      await screening.close();
      await webhooks.close();
      await store.close();
      storage.close();
      await db.destroy();
    },
  };
}
