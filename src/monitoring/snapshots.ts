// State snapshots: the monitoring state written to a file now and then, so that a start reads the snapshot
// and replays only the log after it instead of the whole log. A snapshot is a cache of the log, never a
// source of truth: it names the position and hash of the last event it holds, and a start that cannot find
// that event in the log (a database restored from a backup, another database) ignores it and replays all.
import { readFile } from 'node:fs/promises';
import { deserialize, serialize } from 'node:v8';
import { writeDurably } from '../durable-file.js';
import type { EventStore } from '../store/index.js';
import { startThread, threadEntry } from '../threads.js';
import type { SnapshotThreadData } from './snapshot-thread.js';
import type { MonitoringState, StateSnapshot } from './state.js';

/** Bumped whenever StateSnapshot changes shape: a file of another format is ignored, not misread. */
const FORMAT = 3;

interface SnapshotFile {
  format: number;
  position: number;
  hash: string;
  takenAt: string;
  /** The StateSnapshot, serialised apart so the state's own bytes are fixed while decisions wait. */
  state: Uint8Array;
}

export interface SnapshotTaken {
  position: number;
  bytes: number;
  /**
   * How long the state was held still (for in-flight decisions to commit, then to serialise it): decisions
   * wait that long when the snapshot is of the live state.
   */
  heldMs: number;
}

/**
 * Serialises the state as of `position()` (decisions wait meanwhile), then writes it durably with the log's
 * hash at that position. Undefined when the log is empty.
 */
export async function takeSnapshot(
  state: MonitoringState,
  store: EventStore,
  path: string,
  now: Date,
  position = () => store.notifiedPosition,
): Promise<SnapshotTaken | undefined> {
  const started = performance.now();
  const taken = await state.snapshot(position, (s) => ({ position: s.position, state: serialize(s), heldMs: performance.now() - started }));
  if (taken.position === 0) return undefined;
  const [last] = await store.readAll({ after: taken.position - 1, limit: 1 });
  if (last?.position !== taken.position) throw new Error(`snapshot position ${taken.position} is not in the log`);
  const file: SnapshotFile = { format: FORMAT, position: taken.position, hash: last.hash, takenAt: now.toISOString(), state: taken.state };
  const bytes = serialize(file);
  await writeDurably(path, bytes);
  return { position: taken.position, bytes: bytes.length, heldMs: taken.heldMs };
}

/** What an operator watches of the state's start-up and snapshots (src/metrics.ts exports it to Prometheus). */
export interface StateObserver {
  stateRebuilt(info: { fromSnapshot: boolean; seconds: number }): void;
  snapshotWritten(info: { position: number; bytes: number; where: 'thread' | 'here'; seconds: number }): void;
  snapshotFailed(): void;
}

/** What a start made of the snapshot file: restored up to a position, refused (and why), or none there. */
export type Restored = { position: number } | { refused: string; error?: unknown } | undefined;

/** Restores the state from the snapshot at `path` if it matches the log and the ruleset; else the caller replays the log. */
export async function restoreSnapshot(state: MonitoringState, store: EventStore, path: string): Promise<Restored> {
  let file: SnapshotFile;
  let snapshot: StateSnapshot;
  try {
    file = deserialize(await readFile(path)) as SnapshotFile;
    if (file.format !== FORMAT) return { refused: `format ${file.format}, this version reads ${FORMAT}` };
    snapshot = deserialize(file.state) as StateSnapshot;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : { refused: 'unreadable', error };
  }
  const [last] = await store.readAll({ after: file.position - 1, limit: 1 });
  if (last?.position !== file.position || last.hash !== file.hash)
    return { refused: `the log has no event with its position (${file.position}) and hash` };
  try {
    if (!state.restore(snapshot)) return { refused: 'the ruleset has velocity features or history keys the snapshot lacks' };
  } catch (error) {
    // A file of the right format whose content is not what this version wrote: the state is untouched (restore
    // builds everything before it replaces anything), and the log is replayed instead.
    return { refused: 'unreadable', error };
  }
  return { position: file.position };
}

/**
 * Writes the next snapshot from a thread of its own: it restores the last snapshot, replays the log after it
 * on its own read connection and writes the result. The deciding thread neither pauses nor replays for it.
 */
export function snapshotInThread(data: SnapshotThreadData): Promise<SnapshotTaken | undefined> {
  const worker = startThread(threadEntry(import.meta.url, 'snapshot-thread'), () => data);
  return new Promise((resolve, reject) => {
    worker.once('message', (m: { taken?: SnapshotTaken; failure?: string }) =>
      m.failure ? reject(new Error(m.failure)) : resolve(m.taken),
    );
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`snapshot thread stopped (exit code ${code})`)));
  });
}
