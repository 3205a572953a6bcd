// The rebuild thread: what a new ruleset needs of the log (ruleset-rebuild.ts), read and built on a connection and
// a core of its own while decisions go on, then handed to the deciding thread one part at a time, each sent once
// the part before has been taken in, so the deciding thread never holds more than one part's work at once.
import { parentPort, workerData } from 'node:worker_threads';
import { loadRuleset } from '../rules/index.js';
import { openLocation } from '../store/database.js';
import { EventStore, Upcasters } from '../store/index.js';
import { registerMonitoringUpcasters } from './events.js';
import { RulesetRebuild, type RebuildPlan } from './ruleset-rebuild.js';

export interface RebuildThreadData {
  dbPath: string;
  rulesDir: string;
  /** The version of the ruleset being swapped in: the rules directory may hold another one by now. */
  version: string;
  plan: RebuildPlan;
  /** The decisions after `after` and up to `upTo` are read. */
  after: number;
  upTo: number;
  /** History times a part holds at most. */
  entriesPerPart: number;
}

/** The thread's messages: a part, then `done`; or a failure. The deciding thread answers each part with 'next'. */
export type RebuildThreadMessage = { part: import('./ruleset-rebuild.js').RebuiltPart } | { done: true } | { failure: string };

const { dbPath, rulesDir, version, plan, after, upTo, entriesPerPart } = workerData as RebuildThreadData;
const port = parentPort!;
const taken = () => new Promise<void>((resolve) => port.once('message', () => resolve()));
const { db } = openLocation(dbPath, { readonly: true, max: 1 });
try {
  const next = await loadRuleset(rulesDir);
  if (next.version !== version) throw new Error(`the rules directory holds ruleset ${next.version}, not ${version}`);
  const store = new EventStore(db, { now: () => new Date() }, { upcasters: registerMonitoringUpcasters(new Upcasters()) });
  const rebuild = new RulesetRebuild(next, plan);
  for await (const e of store.iterateAll({ after, types: ['TransactionDecided'], pageSize: 5000 })) {
    if (e.position > upTo) break;
    rebuild.record(e);
  }
  for (const part of rebuild.parts(entriesPerPart)) {
    port.postMessage({ part } satisfies RebuildThreadMessage);
    await taken();
  }
  port.postMessage({ done: true } satisfies RebuildThreadMessage);
} catch (error) {
  port.postMessage({ failure: error instanceof Error ? error.message : String(error) } satisfies RebuildThreadMessage);
} finally {
  await db.destroy();
}
