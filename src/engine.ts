import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { AuthService } from './auth/index.js';
import { systemClock, type Clock } from './clock.js';
import { createLogger, type Logger } from './logger.js';
import { Metrics } from './metrics.js';
import { allProjections } from './projections/all.js';
import { ProjectionRegistry } from './projections/index.js';
import { EventStore, migrateStore, openDatabase } from './store/index.js';
import { UserService } from './users/index.js';

export interface EngineOptions {
  /** Folder of the SQLite file; ':memory:' keeps everything in memory (tests, trials). */
  dataDir: string;
  rulesDir?: string;
  clock?: Clock;
  logger?: Logger;
  allowInsecureWebhooks?: boolean;
  /** Base of the URLs the engine hands out (signed uploads). */
  publicBaseUrl?: string;
  /** How often to look for events appended by another process (the CLI); 0 turns it off. */
  tailIntervalMs?: number;
}

export interface Engine {
  readonly options: Readonly<EngineOptions>;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly db: Kysely<any>;
  readonly store: EventStore;
  readonly projections: ProjectionRegistry;
  readonly auth: AuthService;
  readonly users: UserService;
  close(): Promise<void>;
}

/**
 * Builds the whole engine: the log, its read models, and the domain services over them. The HTTP server
 * is one adapter over this object; a payment switch can embed it and call it directly.
 */
export async function createEngine(options: EngineOptions): Promise<Engine> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger();
  if (options.dataDir !== ':memory:') mkdirSync(options.dataDir, { recursive: true });
  const path = options.dataDir === ':memory:' ? ':memory:' : join(options.dataDir, 'compliance.db');
  const { db } = openDatabase(path);
  const metrics = new Metrics();
  const store = new EventStore(db, clock, { onSubscriberError: (err) => logger.error({ err }, 'event subscriber failed') });
  const projections = new ProjectionRegistry(allProjections());
  await migrateStore(db);
  await projections.migrate(db);
  await projections.catchUp(db, store);
  store.setProjector(projections);
  store.setObserver(metrics);
  await store.init();

  const auth = new AuthService(db, store, clock);
  const users = new UserService(db, store, clock);

  const tailMs = options.tailIntervalMs ?? 500;
  const tail = tailMs > 0 ? setInterval(() => void store.catchUp().catch((err) => logger.error({ err }, 'tail failed')), tailMs) : undefined;
  tail?.unref();

  return {
    options,
    clock,
    logger,
    metrics,
    db,
    store,
    projections,
    auth,
    users,
    async close() {
      if (tail) clearInterval(tail);
      await store.drain();
      await db.destroy();
    },
  };
}
