// The backtest thread: compiles a candidate ruleset and replays one business's decisions through it, on a
// read-only connection of its own, so that neither the parsing nor the replay holds the server's event loop.
import { parentPort, workerData } from 'node:worker_threads';
import { ValidationError } from '../errors.js';
import { openDatabase } from '../store/database.js';
import { EventStore, Upcasters } from '../store/index.js';
import { runBacktest, type BacktestJob, type BacktestReply } from './backtest.js';
import { registerMonitoringUpcasters } from './events.js';

const { dbPath, job } = workerData as { dbPath: string; job: BacktestJob };
const { db } = openDatabase(dbPath, { readonly: true });
let reply: BacktestReply;
try {
  const store = new EventStore(db, { now: () => new Date() }, { upcasters: registerMonitoringUpcasters(new Upcasters()) });
  reply = { report: await runBacktest(store, db, job) };
} catch (error) {
  if (error instanceof ValidationError) reply = { invalid: { message: error.message, field: error.field } };
  else reply = { failure: error instanceof Error ? error.message : String(error) };
} finally {
  await db.destroy();
}
parentPort!.postMessage(reply!);
