import { randomBytes } from 'node:crypto';
import { open, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { PRIVATE_FILE } from '../file-modes.js';
import type { Logger } from '../logger.js';

/**
 * The error codes that mean the disk (or the database's size limit) cannot take a write: SQLite's SQLITE_FULL and
 * SQLITE_IOERR family (what a failed write() of the WAL becomes), PostgreSQL's disk_full (53100), and the file
 * system's ENOSPC and EDQUOT (uploads, snapshots). Nothing was written and the same request can succeed once space is freed, so callers get a 503.
 */
export function storageFailureCode(error: unknown): string | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code !== 'string') continue;
    if (code === 'SQLITE_FULL' || code.startsWith('SQLITE_IOERR') || code === '53100' || code === 'ENOSPC' || code === 'EDQUOT')
      return code;
  }
  return undefined;
}

export interface StorageProblem {
  code: string;
  since: Date;
  /** For /healthz and logs: what fails and what to do. */
  reason: string;
}

/** How much a probe writes: more than a typical group-commit batch adds to the WAL, so that its success means room. */
const PROBE_BYTES = 1024 * 1024;

/**
 * Whether writes are failing for lack of space, as episodes: the first failing write opens one (logged once, however
 * many requests then fail), the first write that succeeds closes it (logged once). While one is open, the data
 * folder is probed every `probeMs` by writing and deleting a file, so that a service that no longer receives
 * writes (a load balancer took it out because /healthz failed) still notices that space came back.
 */
export class StorageHealth {
  #problem: StorageProblem | undefined;
  #probe: NodeJS.Timeout | undefined;
  readonly #logger: Logger;
  readonly #dataDir: string | undefined;
  readonly #probeMs: number;

  constructor(options: { logger: Logger; dataDir?: string; probeMs?: number }) {
    this.#logger = options.logger;
    this.#dataDir = options.dataDir === ':memory:' ? undefined : options.dataDir;
    this.#probeMs = options.probeMs ?? 5000;
  }

  get problem(): StorageProblem | undefined {
    return this.#problem;
  }

  /** Records a failed write; true when it was a storage failure (which then opened or continues an episode). */
  failed(error: unknown): boolean {
    const code = storageFailureCode(error);
    if (!code) return false;
    if (this.#problem) return true;
    const reason = `writes are failing for lack of storage space (${code}); free space in the data directory`;
    this.#problem = { code, since: new Date(), reason };
    this.#logger.error({ err: error, code }, `storage full: ${reason}; answering 503 until a write succeeds`);
    if (this.#dataDir && this.#probeMs > 0) {
      this.#probe = setInterval(() => void this.#runProbe(), this.#probeMs);
      this.#probe.unref();
    }
    return true;
  }

  /** Records a write that reached the disk: ends the episode, if one is open. */
  succeeded(): void {
    if (!this.#problem) return;
    const seconds = (Date.now() - this.#problem.since.getTime()) / 1000;
    this.#problem = undefined;
    clearInterval(this.#probe);
    this.#probe = undefined;
    this.#logger.info({ seconds }, 'storage writable again');
  }

  close(): void {
    clearInterval(this.#probe);
  }

  async #runProbe(): Promise<void> {
    const path = join(this.#dataDir!, `.storage-probe-${randomBytes(4).toString('hex')}`);
    try {
      const file = await open(path, 'wx', PRIVATE_FILE);
      try {
        await file.writeFile(Buffer.alloc(PROBE_BYTES));
        await file.sync();
      } finally {
        await file.close();
      }
      this.succeeded();
    } catch {
      // Still full: the episode goes on, already logged.
    } finally {
      await unlink(path).catch(() => undefined);
    }
  }
}
