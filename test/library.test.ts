import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tempDir } from './helpers.js';

const run = promisify(execFile);
let dir: ReturnType<typeof tempDir>;
beforeAll(() => {
  dir = tempDir();
});
afterAll(() => dir.remove());

it("writes its log lines to stderr when the host gives no logger, never into the host's stdout", async () => {
  const host = `
import { createEngine } from './src/index.ts';
const engine = await createEngine({ dataDir: process.env.HOST_DATA_DIR, screeningCacheDir: process.env.SCREENING_CACHE_DIR, tailIntervalMs: 0, watchRules: false });
const decision = await engine.decide({ transactionData: { reference: 'TX-1', amount: 25000, currency: 'NGN', senderAccount: '0123456789' } });
await engine.monitoring.writeSnapshot();
await engine.close();
console.log(decision.action.result);
`;
  const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', host], {
    env: { ...process.env, HOST_DATA_DIR: dir.path, LOG_LEVEL: 'info' },
  });
  expect(stdout).toBe('approved\n');
  // The engine did log (at LOG_LEVEL info): on stderr.
  expect(stderr).toContain('state snapshot written');
}, 180_000);
