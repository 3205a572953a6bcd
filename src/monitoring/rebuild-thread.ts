// The rebuild thread: what a new ruleset needs of the log (ruleset-rebuild.ts), read and built on a connection and
// a core of its own while decisions go on. It then reads on, in passes, what was committed meanwhile, up to where
// the deciding thread says, until that one is told it has little left to read; then it hands the state over one
// part at a time, each sent once the part before has been taken in, so the deciding thread never holds more than
// one part's work at once.
import { parentPort, workerData } from 'node:worker_threads';
import { loadRuleset } from '../rules/index.js';
import { openLocation } from '../store/database.js';
import { EventStore, Upcasters } from '../store/index.js';
import { registerMonitoringUpcasters } from './events.js';
import { RulesetRebuild, type RebuildPlan, type RebuiltPart } from './ruleset-rebuild.js';

export interface RebuildThreadData {
  dbPath: string;
  rulesDir: string;
  /** The version of the ruleset being swapped in: the rules directory may hold another one by now. */
  version: string;
  plan: RebuildPlan;
  /** The decisions after `after` and up to `upTo` are read first. */
  after: number;
  upTo: number;
  /** Entries (window entries or history times) a part holds at most. */
  entriesPerPart: number;
}

/**
 * The thread's messages: how far it has read (`at`), each time the deciding thread may send it further; then the
 * parts, and `done` with the position they hold the log up to; or a failure.
 */
export type RebuildThreadMessage = { at: number } | { part: RebuiltPart } | { done: number } | { failure: string };
/** The deciding thread's answers: to `at`, read on up to `upTo`, or hand the parts over; to a part, 'next'. */
export type RebuildThreadAnswer = { upTo: number } | 'parts' | 'next';

const { dbPath, rulesDir, version, plan, after, upTo, entriesPerPart } = workerData as RebuildThreadData;
const port = parentPort!;
const answer = () => new Promise<RebuildThreadAnswer>((resolve) => port.once('message', resolve));
const { db } = openLocation(dbPath, { readonly: true, max: 1 });
try {
  const next = await loadRuleset(rulesDir);
  if (next.version !== version) throw new Error(`the rules directory holds ruleset ${next.version}, not ${version}`);
  const store = new EventStore(db, { now: () => new Date() }, { upcasters: registerMonitoringUpcasters(new Upcasters()) });
  const rebuild = new RulesetRebuild(next, plan);
  const read = async (from: number, to: number) => {
    for await (const e of store.iterateAll({ after: from, types: ['TransactionDecided'], pageSize: 5000 })) {
      if (e.position > to) break;
      rebuild.record(e);
    }
  };
  let at = upTo;
  await read(after, at);
  for (;;) {
    port.postMessage({ at } satisfies RebuildThreadMessage);
    const further = await answer();
    if (typeof further !== 'object') break;
    await read(at, further.upTo);
    at = further.upTo;
  }
  for (const part of rebuild.parts(entriesPerPart)) {
    port.postMessage({ part } satisfies RebuildThreadMessage);
    await answer();
  }
  port.postMessage({ done: at } satisfies RebuildThreadMessage);
} catch (error) {
  port.postMessage({ failure: error instanceof Error ? error.message : String(error) } satisfies RebuildThreadMessage);
} finally {
  await db.destroy();
}
