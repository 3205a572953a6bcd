import { startThread, threadEntry } from '../threads.js';
import type { RebuildThreadData, RebuildThreadMessage } from './rebuild-thread.js';
import type { RulesetRebuild } from './ruleset-rebuild.js';

/** History times a part from the rebuild thread holds: taking one in costs the deciding thread a few milliseconds. */
const ENTRIES_PER_PART = 10_000;

/** Where the rebuild thread reads the log and the rules from. */
export interface RebuildSource {
  readonly dbPath: string;
  readonly rulesDir: string;
}

/**
 * Rebuilds the decisions after `after` and up to `upTo` into `rebuild` in a thread of its own (rebuild-thread.ts),
 * taking its parts in one per turn of the event loop, so decisions run in between.
 */
export function rebuildInThread(source: RebuildSource, rebuild: RulesetRebuild, after: number, upTo: number): Promise<void> {
  const data: RebuildThreadData = {
    ...source,
    version: rebuild.next.version,
    plan: rebuild.plan,
    after,
    upTo,
    entriesPerPart: ENTRIES_PER_PART,
  };
  const worker = startThread(threadEntry(import.meta.url, 'rebuild-thread'), () => data);
  return new Promise<void>((resolve, reject) => {
    worker.on('message', (m: RebuildThreadMessage) => {
      if ('failure' in m) return reject(new Error(m.failure));
      if ('done' in m) return resolve();
      try {
        rebuild.absorb(m.part);
      } catch (error) {
        void worker.terminate();
        return reject(error);
      }
      setImmediate(() => worker.postMessage('next'));
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`rebuild thread stopped (exit code ${code})`)));
  });
}
