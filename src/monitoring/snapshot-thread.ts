// The snapshot thread: the monitoring state rebuilt from the last snapshot and the log after it, up to the head
// it found when it started, then written as the next snapshot. It replays exactly as a start would, so what
// it writes is what a replay of the log gives (which the live state equals).
import { parentPort, workerData } from 'node:worker_threads';
import { loadRuleset } from '../rules/index.js';
import { openLocation } from '../store/database.js';
import { EventStore, Upcasters } from '../store/index.js';
import { registerMonitoringUpcasters } from './events.js';
import { restoreSnapshot, takeSnapshot } from './snapshots.js';
import { MonitoringState } from './state.js';

export interface SnapshotThreadData {
  dbPath: string;
  rulesDir: string;
  snapshotPath: string;
  /** The engine clock's time: velocity holds what is inside the windows at this time. */
  now: number;
}

const { dbPath, rulesDir, snapshotPath, now } = workerData as SnapshotThreadData;
const { db } = openLocation(dbPath, { readonly: true, max: 1 });
try {
  const store = new EventStore(db, { now: () => new Date(now) }, { upcasters: registerMonitoringUpcasters(new Upcasters()) });
  const head = await store.head();
  const state = new MonitoringState(await loadRuleset(rulesDir));
  await restoreSnapshot(state, store, snapshotPath);
  await state.rebuild(store, now, head);
  parentPort!.postMessage({ taken: await takeSnapshot(state, store, snapshotPath, new Date(now), () => head) });
} catch (error) {
  parentPort!.postMessage({ failure: error instanceof Error ? error.message : String(error) });
} finally {
  await db.destroy();
}
