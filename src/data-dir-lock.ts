import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { processAlive } from './durable-file.js';
import type { Logger } from './logger.js';

/** The file in DATA_DIR naming the node that holds it. */
export const LOCK_FILE = 'node.lock';

interface Holder {
  pid: number;
  host: string;
}

const holderOf = (path: string): Holder | undefined => {
  try {
    const holder = JSON.parse(readFileSync(path, 'utf8')) as Partial<Holder>;
    return typeof holder.pid === 'number' && typeof holder.host === 'string' ? { pid: holder.pid, host: holder.host } : undefined;
  } catch {
    return undefined; // gone, or cut short by a crash between create and write: nobody holds it
  }
};

/**
 * Holds DATA_DIR for this process, so that two nodes never share its snapshots and files: created exclusively,
 * it names this process. A lock left by a process of this host that is gone is taken over; one held by a live
 * process, or by another host (whose processes cannot be asked), refuses the start. Engines of one process share it.
 * Returns the release, which removes the file if this call created it.
 */
export function holdDataDir(dataDir: string, logger: Logger): () => void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, LOCK_FILE);
  const mine: Holder = { pid: process.pid, host: hostname() };
  for (;;) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, `${JSON.stringify(mine)}\n`);
      closeSync(fd);
      return () => {
        const holder = holderOf(path);
        if (holder?.pid === mine.pid && holder.host === mine.host) rmSync(path, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = holderOf(path);
    if (holder?.pid === mine.pid && holder.host === mine.host) return () => {};
    if (holder && (holder.host !== mine.host || processAlive(holder.pid)))
      throw new Error(
        `DATA_DIR ${dataDir} is held by another node (pid ${holder.pid} on ${holder.host}, see ${path}): give each node its own DATA_DIR, or remove that file if the node is gone`,
      );
    logger.warn({ path, holder }, 'taking over the DATA_DIR lock of a node that is gone');
    rmSync(path, { force: true });
  }
}
