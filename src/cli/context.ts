import { hostname } from 'node:os';
import { systemClock, type Clock } from '../clock.js';
import { loadConfig } from '../config.js';
import { stderrLogger } from '../logger.js';
import { openLog, type OpenLog } from '../open-log.js';

/** A command writes its result to `out` (stdout, machine-readable) and diagnostics to `err` (stderr). */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

export type Command = (argv: string[], io: CliIo) => Promise<number>;

/**
 * The log and its read models alone, for commands that need no domain service beyond those over the log (keys,
 * webhook secrets, replay): they start without loading the rules, the screening lists or their index. It talks
 * to the same store as the server (SQLite allows one writer at a time; the server sees CLI events).
 */
export async function withLog<T>(work: (log: OpenLog & { clock: Clock }) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const log = await openLog({
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl,
    nodeId: config.nodeId ?? `cli-${hostname()}-${process.pid}`,
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
