import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { systemClock, type Clock } from '../clock.js';
import { loadConfig } from '../config.js';
import { preparePrivateDir } from '../file-modes.js';
import { stderrLogger } from '../logger.js';
import type { OpenLog } from '../open-log.js';
import { readModelCurrent } from '../projections/index.js';
import { LOG_FILE, openLocation } from '../store/index.js';

/** A command writes its result to `out` (stdout, machine-readable) and diagnostics to `err` (stderr). */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

export type Command = (argv: string[], io: CliIo) => Promise<number>;

const nodeIdOf = (config: { nodeId?: string }): string => config.nodeId ?? `cli-${hostname()}-${process.pid}`;

/**
 * The log and its read models alone, for commands that need no domain service beyond those over the log (keys,
 * webhook secrets, replay): they start without loading the rules, the screening lists or their index. It talks
 * to the same store as the server (SQLite allows one writer at a time; the server sees CLI events).
 */
export async function withLog<T>(work: (log: OpenLog & { clock: Clock }) => Promise<T>): Promise<T> {
  const config = loadConfig();
  // Imported here, not above: the projector it builds is every domain's code, which withReadModel's commands skip.
  const { openLog } = await import('../open-log.js');
  const log = await openLog({
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl,
    nodeId: nodeIdOf(config),
    clock: systemClock,
    logger: stderrLogger(),
    writerThread: false,
  });
  try {
    return await work({ ...log, clock: systemClock });
  } finally {
    await log.store.close();
    log.storage.close();
    await log.db.destroy();
  }
}

/**
 * One read model alone, for a command that only reads it (`keys list`): the store is opened without migrating it,
 * building the projector or catching it up. When the read model may lag the log (its checkpoint behind the head, or
 * no store yet), the command runs on withLog instead, which brings it up first.
 */
export async function withReadModel<T>(projection: string, work: (db: Kysely<any>) => Promise<T>): Promise<T> {
  const config = loadConfig();
  preparePrivateDir(config.dataDir, stderrLogger());
  const file = join(config.dataDir, LOG_FILE);
  if (config.databaseUrl !== undefined || existsSync(file)) {
    const { db } = openLocation(config.databaseUrl ?? file, { applicationName: `compliance-engine ${nodeIdOf(config)}` });
    try {
      if (await readModelCurrent(db, projection)) return await work(db);
    } finally {
      await db.destroy();
    }
  }
  return withLog(({ db }) => work(db));
}
