import { afterEach, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { DEFAULT_PARTITIONS, partitionsStream } from '../../src/partitions/index.js';
import { runCli, type TestEngine, testEngine, tempDir } from '../helpers.js';

let base: TestEngine | undefined;
afterEach(async () => {
  await base?.close();
  base = undefined;
});

const recorded = async (businessId: string) =>
  (await base!.engine.store.readStream(partitionsStream(businessId))).map((e) => ({ type: e.type, data: e.data }));

it("records a new business's partition count with its first key, the default unless set, and nothing with its next", async () => {
  base = await testEngine();
  const first = await base.engine.auth.issue({ name: 'first' });
  expect(await recorded(first.businessId)).toEqual([{ type: 'PartitionsFixed', data: { count: DEFAULT_PARTITIONS } }]);
  await base.engine.auth.issue({ name: 'second', businessId: first.businessId });
  expect(await recorded(first.businessId)).toHaveLength(1);
  const named = await base.engine.auth.issue({ name: 'named', businessId: 'acme' });
  expect(await recorded(named.businessId)).toEqual([{ type: 'PartitionsFixed', data: { count: DEFAULT_PARTITIONS } }]);
});

it('records the PARTITIONS setting, and refuses another count for a business set up with one', async () => {
  base = await testEngine({ partitions: 16 });
  const issued = await base.engine.auth.issue({ name: 'first', businessId: 'acme' });
  expect(await recorded(issued.businessId)).toEqual([{ type: 'PartitionsFixed', data: { count: 16 } }]);
  expect(await base.engine.partitions.count('acme')).toBe(16);
  await expect(base.engine.partitions.fix({ businessId: 'acme' }, 8)).rejects.toThrow(/16 partitions/);
});

it('keys create records PARTITIONS for a new business', async () => {
  const dir = tempDir();
  try {
    const created = await runCli({ DATA_DIR: dir.path, PARTITIONS: '8' }, 'keys', 'create', '--name', 'cli', '--business', 'cli-biz');
    expect(created.code).toBe(0);
    base = await testEngine({ dataDir: dir.path });
    expect(await base.engine.partitions.count('cli-biz')).toBe(8);
  } finally {
    await base?.close();
    base = undefined;
    dir.remove();
  }
});

it('reads PARTITIONS, NODE_URL and the lease times, and refuses bad ones by name', () => {
  expect(loadConfig({}).partitions).toBeUndefined();
  expect(loadConfig({ PARTITIONS: '128' }).partitions).toBe(128);
  for (const bad of ['0', '4097', '2.5', 'many']) expect(() => loadConfig({ PARTITIONS: bad })).toThrow(/^PARTITIONS must be/);
  expect(loadConfig({ NODE_URL: 'http://10.0.0.7:8080/' }).node).toEqual({
    url: 'http://10.0.0.7:8080',
    renewMs: undefined,
    ttlMs: undefined,
  });
  for (const bad of ['10.0.0.7:8080', 'http://a:8080/engine', 'ftp://a'])
    expect(() => loadConfig({ NODE_URL: bad })).toThrow(/^NODE_URL must be/);
  expect(loadConfig({ LEASE_RENEW_MS: '500', LEASE_TTL_MS: '3000' }).node).toMatchObject({ renewMs: 500, ttlMs: 3000 });
  expect(() => loadConfig({ LEASE_TTL_MS: '1500' })).toThrow(/^LEASE_TTL_MS must be at least twice LEASE_RENEW_MS/);
  expect(() => loadConfig({ LEASE_RENEW_MS: 'soon' })).toThrow(/^LEASE_RENEW_MS must be/);
});
