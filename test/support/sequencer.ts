// The order test files start in. The workers share the files, each taking the next when it is free, so a long file
// that starts last keeps one worker busy while the other idles. Vitest orders by the durations of the last run
// when it has them, which a clean clone (CI) never has, and else by file size, which puts short files of long
// property tests near the end.
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The longest files, longest first: the file durations of a run of `--project main` (two workers on the shared
 * 2-core machine, load 8 to 19), and the `long` project's fuzzer alone.
 */
export const LONGEST = [
  'test/http/fuzz.test.ts', // 230-270 s alone: a backtest thread for each fuzzed ruleset
  'test/users/sign-in.test.ts', // 170 s: scrypt at its production cost, slowed most by the other worker's load
  'test/package.test.ts', // 152 s with no tarball kept (a fresh clone: npm pack's tsc)
  'test/console/console.e2e.test.ts', // 104 s
  'test/projections/replay.property.test.ts', // 81 s: 35 engines, 10 of them on PostgreSQL
  'test/audit/restart-from-edge.test.ts', // 71 s
  'test/audit/tamper.test.ts', // 54 s
  'test/monitoring/restart.test.ts', // 43 s
  'test/console/queue.e2e.test.ts', // 40 s
  'test/cluster/shared-keys.test.ts', // 37 s
  'test/name-matching/derived-cache.test.ts', // 36 s
  'test/monitoring/replay-live.property.test.ts', // 32 s
];

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const rank = (file: TestSpecification) => {
      const at = LONGEST.indexOf(relative(root, file.moduleId));
      return at === -1 ? LONGEST.length : at;
    };
    // A stable sort: the other files keep Vitest's order.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}
