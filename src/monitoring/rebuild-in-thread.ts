import { startThread, threadEntry } from '../threads.js';
import type { HoldTimer } from './rebuild-slices.js';
import type { RebuildThreadAnswer, RebuildThreadData, RebuildThreadMessage } from './rebuild-thread.js';
import type { RulesetRebuild } from './ruleset-rebuild.js';

/**
 * Entries (window entries or history times) a part from the rebuild thread holds: taking one in, its structured
 * clone included, holds the deciding thread for about a millisecond.
 */
const ENTRIES_PER_PART = 2_000;
/**
 * The thread reads on while more than this many events were committed since it last read, and fewer than during
 * its pass before: what it leaves is read here, in slices between decisions. Its passes shrink with the rate at
 * which it reads (several times the rate at which decisions commit), so the cap only bounds a thread starved of CPU.
 */
const LEFT_HERE = 200;
const THREAD_PASSES = 16;

/** Where the rebuild thread reads the log and the rules from. */
export interface RebuildSource {
  readonly dbPath: string;
  readonly rulesDir: string;
}

/**
 * Rebuilds the decisions after `after` and up to `upTo`, then those committed meanwhile (up to `applied()` as the
 * thread asks), into `rebuild` in a thread of its own (rebuild-thread.ts), taking its parts in one per turn of the
 * event loop, so decisions run in between; `timer` times each take-in. Resolves to the position the rebuilt state
 * holds the log up to.
 */
export function rebuildInThread(
  source: RebuildSource,
  rebuild: RulesetRebuild,
  range: { readonly after: number; readonly upTo: number; readonly applied: () => number },
  timer: HoldTimer,
): Promise<number> {
  const data: RebuildThreadData = {
    ...source,
    version: rebuild.next.version,
    plan: rebuild.plan,
    after: range.after,
    upTo: range.upTo,
    entriesPerPart: ENTRIES_PER_PART,
  };
  const worker = startThread(threadEntry(import.meta.url, 'rebuild-thread'), () => data);
  const answer = (a: RebuildThreadAnswer) => worker.postMessage(a);
  let passes = 0;
  let left = Infinity;
  return new Promise<number>((resolve, reject) => {
    worker.on('message', (m: RebuildThreadMessage) => {
      if ('failure' in m) return reject(new Error(m.failure));
      if ('done' in m) return resolve(m.done);
      if ('at' in m) {
        const applied = range.applied();
        const further = applied - m.at > LEFT_HERE && applied - m.at < left && passes++ < THREAD_PASSES;
        left = applied - m.at;
        return answer(further ? { upTo: applied } : 'parts');
      }
      const started = performance.now();
      try {
        rebuild.absorb(m.part);
        timer.add(performance.now() - started);
      } catch (error) {
        void worker.terminate();
        return reject(error);
      }
      setImmediate(() => answer('next'));
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`rebuild thread stopped (exit code ${code})`)));
  });
}
