// A deciding thread (DECISION_THREADS, decision-threads.ts): its own read connection to the log's file, its own
// monitoring state holding its share of every business's partitions (thread-share.ts, partition-follow.ts), and
// a store that appends through the engine's one writer thread, whose control fence refuses a decision made before
// a list change this thread had not yet seen.
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { logUpcasters } from '../all-projections.js';
import { CaseService } from '../cases/index.js';
import { systemClock } from '../clock.js';
import { createLogger } from '../logger.js';
import { ScreeningScores } from '../screening/scores.js';
import { EventStore, openDatabase, WriterPort } from '../store/index.js';
import { encodeError } from '../store/wire-errors.js';
import { UserService } from '../users/index.js';
import { CONTROL_EVENT_TYPES } from './events.js';
import type { InstantRequest } from './request-schema.js';
import { MonitoringService } from './service.js';
import { ThreadShare } from './thread-share.js';
import type { Actor } from './pipeline.js';

export interface DecidingThreadData {
  index: number;
  threads: number;
  /** The log's SQLite file. */
  dbPath: string;
  dataDir: string;
  rulesDir: string;
  watchRules: boolean;
  /** The engine's state snapshot, read at start (the engine's thread writes it). */
  snapshotPath?: string;
  historyHorizonMs?: number;
  screeningCacheDir?: string;
  nodeId: string;
  logLevel: string;
  /** The writer thread's port for this thread's store. */
  writer: MessagePort;
  /** Each business's partition count known at start. */
  counts: [string, number][];
}

export type ToDeciding =
  | { id: number; decide: { actor: Actor; request: InstantRequest; count: number; partition: number } }
  | { id: number; reload: true }
  | { close: true };

export type FromDeciding =
  | { ready: true }
  | { log: string }
  /** `at`: this thread's store had been told of the log up to there, the decision's own commit included. */
  | { id: number; decision: unknown; decided: string[]; at: number }
  | { id: number; failure: ReturnType<typeof encodeError>; decided: string[] }
  | { id: number; reloaded: boolean };

const parent = parentPort!;
const data = workerData as DecidingThreadData;
// Lines go to the engine's logger, which the engine's thread holds.
const logger = createLogger(data.logLevel, { write: (line: string) => parent.postMessage({ log: line } satisfies FromDeciding) });
const clock = systemClock;
const { db } = openDatabase(data.dbPath);
const store = new EventStore(db, clock, {
  writer: new WriterPort(data.writer, true),
  origin: data.nodeId,
  upcasters: logUpcasters(),
  controlTypes: CONTROL_EVENT_TYPES,
  onSubscriberError: (err) => logger.error({ err }, 'event subscriber failed'),
});
await store.init();
const scores = await ScreeningScores.open({ db, store, clock, logger, dataDir: data.dataDir, cacheDir: data.screeningCacheDir });
const users = new UserService(db, store, clock);
const cases = new CaseService(db, store, clock, users, async () => undefined);
/** Results of new decisions since the last answer: the engine's thread counts them in its metrics. */
let decided: string[] = [];
const monitoring = await MonitoringService.start(
  {
    db,
    store,
    clock,
    logger,
    cases,
    observer: {
      decided: (result) => decided.push(result),
      rulesChanged: () => undefined,
      stateRebuilt: () => undefined,
      snapshotWritten: () => undefined,
      snapshotFailed: () => undefined,
    },
    providers: { screeningScore: scores.bestScore },
  },
  {
    rulesDir: data.rulesDir,
    watch: data.watchRules,
    historyHorizonMs: data.historyHorizonMs,
    // Read at start, never written here: the engine's thread writes it from the log.
    snapshots: data.snapshotPath ? { path: data.snapshotPath, dbPath: data.dbPath, every: 0, readOnly: true } : undefined,
  },
);
const share = new ThreadShare(data.index, data.threads, data.counts);
monitoring.followPartitions(share);

const counted = () => {
  const results = decided;
  decided = [];
  return results;
};

parent.on('message', async (message: ToDeciding) => {
  if ('close' in message) {
    await monitoring.close();
    await store.close();
    await db.destroy();
    parent.close();
    return;
  }
  if ('reload' in message) {
    const reloaded = await monitoring.reloadRules().catch((error: unknown) => ({ error }));
    if (typeof reloaded === 'boolean') parent.postMessage({ id: message.id, reloaded } satisfies FromDeciding);
    else parent.postMessage({ id: message.id, failure: encodeError(reloaded.error), decided: counted() } satisfies FromDeciding);
    return;
  }
  const { actor, request, count, partition } = message.decide;
  share.learn(actor.businessId, count);
  share.place(request, partition);
  try {
    const decision = await monitoring.decideParsed(actor, request);
    parent.postMessage({ id: message.id, decision, decided: counted(), at: store.notifiedPosition } satisfies FromDeciding);
  } catch (error) {
    parent.postMessage({ id: message.id, failure: encodeError(error), decided: counted() } satisfies FromDeciding);
  }
});
parent.postMessage({ ready: true } satisfies FromDeciding);
