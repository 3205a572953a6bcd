import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { EventStore } from '../store/index.js';
import { removeStaleTemporaries } from '../durable-file.js';
import { restoreSnapshot, snapshotInThread, takeSnapshot, type Restored, type SnapshotTaken, type StateObserver } from './snapshots.js';
import type { MonitoringState } from './state.js';

export interface SnapshotOptions {
  /** The snapshot file: read at start, written while running (from a thread of its own) and at close. */
  path: string;
  /** The log's database file, which the snapshot thread reads on a connection of its own. */
  dbPath: string;
  /** Events appended between two snapshots while running (default 250,000); 0: read the snapshot at start but never write one (one-shot CLI runs). */
  every?: number;
  /**
   * Every snapshot from the log, in the snapshot thread, never of the live state: the live state holds a share of
   * the partitions only (the engine's thread while deciding threads decide).
   */
  fromLog?: boolean;
  /** Another thread writes the file (a deciding thread's): read at start, its half-written temporaries left alone. */
  readOnly?: boolean;
}

/** The snapshot restored at start, if one is there and usable; the whole log is replayed otherwise. */
export async function restoreAtStart(
  state: MonitoringState,
  store: EventStore,
  options: SnapshotOptions | undefined,
  logger: Logger,
): Promise<Restored> {
  if (!options) return undefined;
  const { path } = options;
  const stale = options.readOnly ? [] : await removeStaleTemporaries(path);
  if (stale.length > 0) logger.warn({ files: stale }, 'removed snapshot files left half-written by a stopped process');
  const restored = await restoreSnapshot(state, store, path);
  if (restored && 'refused' in restored)
    logger.warn({ err: restored.error, path }, `state snapshot not used (${restored.refused}); replaying the whole log`);
  return restored;
}

const DEFAULT_SNAPSHOT_EVERY = 250_000;

/** When the monitoring state is snapshotted, and where: every `every` events from a thread, and at close here. */
export class SnapshotSchedule {
  /** Log position of the last snapshot written or restored. */
  #position: number;
  #writing: Promise<void> | undefined;
  readonly #every: number;

  constructor(
    private readonly options: SnapshotOptions | undefined,
    private readonly deps: {
      state: MonitoringState;
      store: EventStore;
      clock: Clock;
      logger: Logger;
      rulesDir: string;
      observer: StateObserver | undefined;
    },
    restoredPosition: number,
  ) {
    this.#position = restoredPosition;
    this.#every = options ? (options.every ?? DEFAULT_SNAPSHOT_EVERY) : 0;
  }

  /** After each commit: snapshots from a thread once `every` events have been appended since the last one. */
  committed(): void {
    if (this.#every > 0 && !this.#writing && this.deps.store.notifiedPosition - this.#position >= this.#every) void this.#write('thread');
  }

  /** Writes a snapshot of the live state now (decisions wait while it is taken); resolves once it is on disk. */
  async writeNow(): Promise<void> {
    await this.#writing;
    await this.#write('here');
  }

  /**
   * At close, a snapshot so that the next start is quick, unless the last one is recent (under a tenth of `every`
   * behind): replaying that much costs the next start about a second, while serialising a large state holds the
   * close for seconds.
   */
  async close(): Promise<void> {
    await this.#writing;
    const behind = this.deps.store.notifiedPosition - this.#position;
    const recent = this.#position > 0 && behind < this.#every / 10;
    if (this.#every > 0 && behind > 0 && !recent) await this.#write('here');
  }

  /**
   * Writes a snapshot unless one is being written; a failure only costs a longer replay. 'thread': rebuilt
   * from the last snapshot and the log in a thread of its own, so decisions never wait (while running);
   * 'here': of the live state, decisions waiting while it is serialised (at close, where nothing waits).
   */
  #write(where: 'thread' | 'here'): Promise<void> {
    const options = this.options;
    if (!options || this.#writing) return this.#writing ?? Promise.resolve();
    if (options.fromLog) where = 'thread';
    const { state, store, clock, logger, observer, rulesDir } = this.deps;
    const now = clock.now();
    const started = performance.now();
    const taking: Promise<SnapshotTaken | undefined> =
      where === 'here'
        ? takeSnapshot(state, store, options.path, now)
        : snapshotInThread({ dbPath: options.dbPath, rulesDir, snapshotPath: options.path, now: now.getTime() });
    this.#writing = taking
      .then((taken) => {
        if (!taken) return;
        this.#position = taken.position;
        const ms = performance.now() - started;
        logger.info({ ...taken, where, ms: Math.round(ms) }, 'state snapshot written');
        observer?.snapshotWritten({ position: taken.position, bytes: taken.bytes, where, seconds: ms / 1000 });
      })
      .catch((err) => {
        logger.error({ err, path: options.path }, 'state snapshot failed; the next start replays more of the log');
        observer?.snapshotFailed();
      })
      .finally(() => (this.#writing = undefined));
    return this.#writing;
  }
}
