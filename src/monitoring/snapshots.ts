// State snapshots: the monitoring state written to a file now and then, so that a start reads the snapshot
// and replays only the log after it instead of the whole log. A snapshot is a cache of the log, never a
// source of truth: it names the position and hash of the last event it holds, and a start that cannot find
// that event in the log (a database restored from a backup, another database) ignores it and replays all.
import { readFile } from 'node:fs/promises';
import { deserialize, serialize } from 'node:v8';
import { writeDurably } from '../durable-file.js';
import type { Logger } from '../logger.js';
import type { EventStore } from '../store/index.js';
import type { MonitoringState, StateSnapshot } from './state.js';

/** Bumped whenever StateSnapshot changes shape: a file of another format is ignored, not misread. */
const FORMAT = 1;

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
  /** How long decisions waited: for in-flight decisions to commit, then for the state to be serialised. */
  pauseMs: number;
}

/** Serialises the state (decisions wait meanwhile), then writes it durably next to the log's position and hash. */
export async function takeSnapshot(state: MonitoringState, store: EventStore, path: string, now: Date): Promise<SnapshotTaken | undefined> {
  const started = performance.now();
  const taken = await state.snapshot(
    () => store.notifiedPosition,
    (s) => ({ position: s.position, state: serialize(s), pauseMs: performance.now() - started }),
  );
  if (taken.position === 0) return undefined;
  const [last] = await store.readAll({ after: taken.position - 1, limit: 1 });
  if (last?.position !== taken.position) throw new Error(`snapshot position ${taken.position} is not in the log`);
  const file: SnapshotFile = { format: FORMAT, position: taken.position, hash: last.hash, takenAt: now.toISOString(), state: taken.state };
  const bytes = serialize(file);
  await writeDurably(path, bytes);
  return { position: taken.position, bytes: bytes.length, pauseMs: taken.pauseMs };
}

/**
 * Restores the state from the snapshot at `path` if it matches the log and the ruleset; returns the position
 * it restored to, or undefined (no snapshot, or one that cannot be used: the caller then replays the log).
 */
export async function restoreSnapshot(state: MonitoringState, store: EventStore, path: string, logger: Logger): Promise<number | undefined> {
  let file: SnapshotFile;
  try {
    file = deserialize(await readFile(path)) as SnapshotFile;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') logger.warn({ err, path }, 'state snapshot unreadable; replaying the whole log');
    return undefined;
  }
  const refuse = (why: string): undefined => {
    logger.warn({ path, position: file.position, takenAt: file.takenAt }, `state snapshot not used: ${why}; replaying the whole log`);
    return undefined;
  };
  if (file.format !== FORMAT) return refuse(`format ${file.format}, this version reads ${FORMAT}`);
  const [last] = await store.readAll({ after: file.position - 1, limit: 1 });
  if (last?.position !== file.position || last.hash !== file.hash) return refuse('the log has no event with its position and hash');
  let snapshot: StateSnapshot;
  try {
    snapshot = deserialize(file.state) as StateSnapshot;
  } catch (err) {
    logger.warn({ err, path }, 'state snapshot unreadable; replaying the whole log');
    return undefined;
  }
  if (!state.restore(snapshot)) return refuse('the ruleset has velocity features or history keys the snapshot lacks');
  return file.position;
}
