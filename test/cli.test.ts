import { execFile } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase } from '../src/store/index.js';
import { runCli, tempDir } from './helpers.js';

let dir: ReturnType<typeof tempDir>;
const cli = (...args: string[]) => runCli(dir.path, ...args);

beforeAll(() => {
  dir = tempDir();
});
afterAll(() => dir.remove());

it('keys create prints exactly the credentials as JSON, and keys list shows no secret', async () => {
  const created = await cli('keys', 'create', '--name', 'switch-a');
  expect(created.code).toBe(0);
  const keys = JSON.parse(created.stdout);
  expect(keys.apiKey).toMatch(/^ck_/);
  expect(keys.apiSecret.length).toBeGreaterThanOrEqual(43);
  expect(keys.webhookSecret).toMatch(/^whsec_/);
  const listed = await cli('keys', 'list');
  expect(listed.stdout).toContain(keys.apiKey);
  expect(listed.stdout).not.toContain(keys.apiSecret);
  // A business's webhook secret can be read back, as a bootstrap key's must be (start-up does not print it).
  const shown = await cli('webhook-secret', 'show', '--business', keys.businessId);
  expect(JSON.parse(shown.stdout)).toEqual({ businessId: keys.businessId, webhookSecrets: [keys.webhookSecret] });
  expect((await cli('webhook-secret', 'show')).code).toBe(2);
});

it('replay --verify passes on an intact store and names table, key and field when a read model drifts', async () => {
  const ok = await cli('replay', '--verify');
  expect(ok.code).toBe(0);
  expect(ok.stdout).toContain('OK: read models equal the replayed log');
  const { db } = openDatabase(`${dir.path}/compliance.db`);
  await db.updateTable('api_keys').set({ name: 'tampered' }).execute();
  await db.destroy();
  const bad = await cli('replay', '--verify');
  expect(bad.code).toBe(1);
  expect(bad.stdout).toMatch(/DIFF api_keys \{"api_key":"ck_[^"]+"\} field name: live "tampered" != replayed "switch-a"/);
  expect((await cli('replay', '--rebuild', '--verify')).code).toBe(0);
});

it('writes its log lines on stderr, so stdout stays the bare JSON result', async () => {
  // A data folder others can read draws a warning (the CLI logs at warn unless LOG_LEVEL says otherwise).
  chmodSync(dir.path, 0o755);
  const tsx = createRequire(import.meta.url).resolve('tsx/cli');
  const env = { ...process.env, DATA_DIR: dir.path, LOG_LEVEL: 'warn' };
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [tsx, 'src/cli.ts', 'keys', 'list'], { env });
  expect(JSON.parse(stdout)).toEqual([expect.objectContaining({ name: 'switch-a' })]);
  expect(stderr).toContain('narrowed to 0700');
});

it('answers an unknown command with usage and exit 2', async () => {
  const res = await cli('frobnicate');
  expect(res.code).toBe(2);
  expect(res.stderr).toContain('usage: compliance COMMAND');
});
