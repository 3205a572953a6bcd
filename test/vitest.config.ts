import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import LongestFirst from './support/sequencer.js';

/**
 * The long crash and load tests: processes killed mid-write and replayed, and the fuzzer's backtests. Their own
 * project, `long`, which CI runs beside `main` (`--project main`, `--project long`); a plain run runs both.
 */
const LONG = ['test/store/crash.test.ts', 'test/cluster/crash.test.ts', 'test/http/fuzz.test.ts'];

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('..', import.meta.url)),
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // A worker a core. Vitest's default leaves one core free (one worker on a 2-core machine), but a test file
    // spends much of its time waiting (fsync, PostgreSQL, Chromium, the CLI's child processes), so the other core
    // would mostly idle.
    maxWorkers: availableParallelism(),
    // Files share their worker's process: the modules and the screening lists load once a worker, not once a file
    // (1.6 s of CPU a file, measured over test/monitoring, security, http, rules, projections, cdd, users and the
    // top level). So a file leaves the process as it found it: engines closed, process.env and Object.prototype restored.
    isolate: false,
    sequence: { sequencer: LongestFirst },
    globalSetup: ['test/support/postgres-setup.ts'],
    // Every test process reads the screening lists parsed and indexed by the first (keyed by the sources and the
    // code, so a change to either rebuilds them); test/name-matching/derived-cache.test.ts checks the two agree.
    // scrypt at 2^10 instead of production's 2^17 for console passwords (1 MiB and about a millisecond a hash):
    // test/users/passwords.test.ts and the sign-in timing check run at production strength.
    env: {
      SCREENING_CACHE_DIR: fileURLToPath(new URL('../node_modules/.cache/compliance-engine/screening', import.meta.url)),
      PASSWORD_SCRYPT_N: '1024',
      ALLOW_WEAK_PASSWORD_HASH: 'true',
    },
    projects: [
      { extends: true, test: { name: 'main', include: ['test/**/*.test.ts', 'src/**/*.test.ts'], exclude: LONG } },
      { extends: true, test: { name: 'long', include: LONG } },
    ],
    reporters: ['default', './test/support/postgres-reporter.ts', './test/support/slowest-reporter.ts'],
  },
});
