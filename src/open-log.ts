import { join } from 'node:path';
import type { Kysely } from 'kysely';
import type pg from 'pg';
import type { Clock } from './clock.js';
import { preparePrivateDir } from './file-modes.js';
import type { Logger } from './logger.js';
import { createProjector, logUpcasters } from './all-projections.js';
import { migrateAuditEdge, migrateAuditSubtrees } from './audit/index.js';
import { CONTROL_EVENT_TYPES } from './monitoring/events.js';
import { threadEntry } from './threads.js';
import type { ProjectionRegistry } from './projections/index.js';
import { migrateLeases } from './partitions/index.js';
import { migrateRegistry } from './registry/index.js';
import { migrateScreeningFiles } from './screening/index.js';
import { migrateUploadFiles } from './uploads/index.js';
import {
  type Backend,
  Claims,
  EventStore,
  LOG_FILE,
  migrateStore,
  openLocation,
  StorageHealth,
  ThreadWriter,
  withSchemaLock,
} from './store/index.js';

export interface OpenLogOptions {
  /** Folder of the SQLite file; ':memory:' keeps everything in memory. */
  dataDir: string;
  /** `postgres://…`: the log and read models in PostgreSQL instead (docs/postgres.md). */
  databaseUrl?: string;
  /** This node's name, in the log's commit notifications and the database's application name. */
  nodeId: string;
  clock: Clock;
  logger: Logger;
  /** Commit in a worker thread (a SQLite file only); see EngineOptions.writerThread. */
  writerThread: boolean;
  /** While writes fail for lack of space, how often the data folder is probed for room again. */
  storageProbeMs?: number;
  /** See EngineOptions.commitIntervalMs. */
  commitIntervalMs?: number;
  /** The writer thread fences appends by control events: deciding threads append through it (EngineOptions.decisionThreads). */
  fenced?: boolean;
}

export interface OpenLog {
  db: Kysely<any>;
  store: EventStore;
  projections: ProjectionRegistry;
  backend: Backend;
  /** PostgreSQL's connection pool, for /metrics. */
  pool: pg.Pool | undefined;
  /** Whether writes are failing for lack of space. */
  storage: StorageHealth;
  /** The SQLite file, or ':memory:'. */
  path: string;
  /** Where the log is: the SQLite file, ':memory:', or the PostgreSQL URL. */
  location: string;
  /** The writer thread, where there is one: deciding threads' stores connect to it. */
  writer: ThreadWriter | undefined;
}

const projectorModuleUrl = threadEntry(import.meta.url, 'all-projections');

/**
 * The log and its read models, migrated and caught up: what every part of the engine stands on. The engine builds
 * its services over it; the CLI's light commands (keys, webhook secrets) use it alone and skip the rest.
 */
export async function openLog(options: OpenLogOptions): Promise<OpenLog> {
  const { logger } = options;
  if (options.dataDir !== ':memory:') preparePrivateDir(options.dataDir, logger);
  const path = options.dataDir === ':memory:' ? ':memory:' : join(options.dataDir, LOG_FILE);
  const location = options.databaseUrl ?? path;
  const { db, backend, pool } = openLocation(location, { applicationName: `compliance-engine ${options.nodeId}` });
  const projections = createProjector();
  // On PostgreSQL the commits run on the pool's connections from this thread: the waiting is the server's.
  const threaded = backend === 'sqlite' && path !== ':memory:' && options.writerThread;
  const controlTypes = options.fenced ? [...CONTROL_EVENT_TYPES] : undefined;
  const writer = threaded ? await ThreadWriter.start({ path, projectorModule: projectorModuleUrl, controlTypes }) : undefined;
  const storage = new StorageHealth({ logger, dataDir: options.dataDir, probeMs: options.storageProbeMs });
  const store = new EventStore(db, options.clock, {
    writer,
    health: storage,
    origin: options.nodeId,
    commitIntervalMs: options.commitIntervalMs,
    claims: new Claims({ url: backend === 'postgres' ? location : undefined, nodeId: options.nodeId }),
    upcasters: logUpcasters(),
    // Nodes sharing the log refuse a decision made from lists another node changed before it committed.
    controlTypes: backend === 'postgres' ? CONTROL_EVENT_TYPES : undefined,
    onSubscriberError: (err) => logger.error({ err }, 'event subscriber failed'),
  });
  await withSchemaLock(db, async (conn) => {
    await migrateStore(conn);
    await projections.migrate(conn);
    await migrateRegistry(conn);
    await migrateUploadFiles(conn);
    await migrateScreeningFiles(conn);
    await migrateAuditSubtrees(conn);
    await migrateAuditEdge(conn);
    await migrateLeases(conn);
    await projections.catchUp(conn, store);
  });
  store.setProjector(projections);
  await store.init();
  store.keepDeferred(projections.deferredTypes);
  return { db, store, projections, backend, pool, storage, path, location, writer };
}
