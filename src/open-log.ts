import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import type { Clock } from './clock.js';
import type { Logger } from './logger.js';
import { registerMonitoringUpcasters } from './monitoring/events.js';
import { allProjections } from './projections/all.js';
import { ProjectionRegistry } from './projections/index.js';
import { EventStore, migrateStore, openDatabase, ThreadWriter, Upcasters } from './store/index.js';

export interface OpenLogOptions {
  /** Folder of the SQLite file; ':memory:' keeps everything in memory. */
  dataDir: string;
  clock: Clock;
  logger: Logger;
  /** Commit in a worker thread (a file database only); see EngineOptions.writerThread. */
  writerThread: boolean;
}

export interface OpenLog {
  db: Kysely<any>;
  store: EventStore;
  projections: ProjectionRegistry;
  /** The SQLite file, or ':memory:'. */
  path: string;
}

const projectorModuleUrl = new URL(`./projections/all${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url).href;

/**
 * The log and its read models, migrated and caught up: what every part of the engine stands on. The engine builds
 * its services over it; the CLI's light commands (keys, webhook secrets) use it alone and skip the rest.
 */
export async function openLog(options: OpenLogOptions): Promise<OpenLog> {
  if (options.dataDir !== ':memory:') mkdirSync(options.dataDir, { recursive: true });
  const path = options.dataDir === ':memory:' ? ':memory:' : join(options.dataDir, 'compliance.db');
  const { db } = openDatabase(path);
  const projections = new ProjectionRegistry(allProjections());
  await migrateStore(db);
  await projections.migrate(db);
  const threaded = path !== ':memory:' && options.writerThread;
  const writer = threaded ? await ThreadWriter.start({ path, projectorModule: projectorModuleUrl }) : undefined;
  const store = new EventStore(db, options.clock, {
    writer,
    upcasters: registerMonitoringUpcasters(new Upcasters()),
    onSubscriberError: (err) => options.logger.error({ err }, 'event subscriber failed'),
  });
  await projections.catchUp(db, store);
  store.setProjector(projections);
  await store.init();
  return { db, store, projections, path };
}
