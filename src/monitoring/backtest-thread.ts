// A backtest thread: takes backtests one at a time from the server's thread (backtest-threads.ts), and for each
// compiles the candidate and replays one business's decisions on a read-only connection of its own, so that neither
// the parsing nor the replay holds the server's event loop. It runs at a lower scheduling priority than the
// server's thread: a backtest is background work, and with few cores requests come first.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { ValidationError } from '../errors.js';
import { openDatabase } from '../store/database.js';
import { EventStore, Upcasters } from '../store/index.js';
import { runBacktest, type BacktestJob, type BacktestReply } from './backtest.js';
import { registerMonitoringUpcasters } from './events.js';

/** The nice value of the thread (0 is the server's; 19 the lowest priority). */
const BACKGROUND_NICE = 10;

const { dbPath } = workerData as { dbPath: string };

/** On Linux setpriority given a thread's own id changes that thread alone; elsewhere the thread keeps the process's priority. */
function lowerPriority(): void {
  let threadId: number;
  try {
    threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
  } catch {
    return;
  }
  setPriority(threadId, BACKGROUND_NICE);
}

async function answer(job: BacktestJob): Promise<BacktestReply> {
  const { db } = openDatabase(dbPath, { readonly: true });
  try {
    const store = new EventStore(db, { now: () => new Date() }, { upcasters: registerMonitoringUpcasters(new Upcasters()) });
    return { report: await runBacktest(store, db, job) };
  } catch (error) {
    if (error instanceof ValidationError) return { invalid: { message: error.message, field: error.field } };
    return { failure: error instanceof Error ? error.message : String(error) };
  } finally {
    await db.destroy();
  }
}

lowerPriority();
parentPort!.on('message', (job: BacktestJob) => void answer(job).then((reply) => parentPort!.postMessage(reply)));
