// The order test files start in. The workers share the files, each taking the next when it is free, so a long file
// that starts last keeps one worker busy while the other idles. Vitest orders by the durations of the last run
// when it has them, which a clean clone (CI) never has, and else by file size, which puts short files of long
// property tests near the end.
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The longest files, longest first: each run alone (`--maxWorkers 1`), wall time on the shared 2-core machine. */
export const LONGEST = [
  'test/http/fuzz.test.ts', // 230-270 s: a backtest thread for each fuzzed ruleset
  'test/projections/replay.property.test.ts', // 80 s: 35 engines, 10 of them on PostgreSQL
  'test/monitoring/restart.test.ts', // 64 s
  'test/monitoring/backtest.property.test.ts', // 60 s
  'test/monitoring/replay-live.property.test.ts', // 45 s
  'test/security/file-modes.test.ts', // 33 s
  'test/security/prototype-keys.test.ts', // 32 s
  'test/security/backtests.test.ts', // 28 s
  'test/users/sign-in.test.ts', // 26 s: scrypt at its production cost
  'test/cdd/durability.test.ts', // 25 s
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
