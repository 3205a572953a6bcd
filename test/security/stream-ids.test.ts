import { afterEach, beforeEach, expect, it } from 'vitest';
import { checkBusinessId, collidingBusinessIds } from '../../src/auth/index.js';
import { caseStream } from '../../src/cases/events.js';
import { createEngine } from '../../src/engine.js';
import { screeningCacheDir, silentLogger, tempDir } from '../helpers.js';

// Each test starts one or two engines from a fresh directory: 20 to 35 s apiece on a loaded machine.
let dir: ReturnType<typeof tempDir>;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => dir.remove());

const open = (logger = silentLogger) =>
  createEngine({ dataDir: dir.path, logger, tailIntervalMs: 0, workerIntervalMs: 0, screeningCacheDir });

it("refuses a new business id with '-', so business 'acme' with case 'x-1' and business 'acme-x' with case '1' cannot meet", async () => {
  // The collision itself: both would write one stream.
  expect(caseStream('acme', 'x-1')).toBe(caseStream('acme-x', '1'));
  const engine = await open();
  try {
    await engine.auth.issue({ name: 'acme', businessId: 'acme' });
    await expect(engine.auth.issue({ name: 'acme x', businessId: 'acme-x' })).rejects.toMatchObject({
      kind: 'validation',
      field: 'businessId',
      message: expect.stringContaining("no '-'"),
    });
    await expect(engine.decide({}, { businessId: 'acme-x' })).rejects.toMatchObject({ kind: 'validation', field: 'businessId' });
    for (const good of ['acme', 'biz_0123abc', 'bank.ng', 'A1']) expect(() => checkBusinessId(good)).not.toThrow();
    for (const bad of ['', 'acme-x', 'a/b', 'a b', '__proto__-', 'x'.repeat(65)]) expect(() => checkBusinessId(bad)).toThrow();
  } finally {
    await engine.close();
  }
}, 180_000);

it('keeps a business made with a dash before ids were checked: its log replays, it gets new keys, and a colliding pair is warned about', async () => {
  // A log written before the check: business 'acme-x' with a case, and business 'acme'.
  const engine = await open();
  const legacy = { name: 'legacy', businessId: 'acme-x', apiKey: 'ck_legacy' };
  await engine.store.append(
    'apikey-ck_legacy',
    [{ type: 'ApiKeyIssued', data: { ...legacy, secretHash: 'ab'.repeat(32), webhookSecret: 'whsec_AAAA' } }],
    { expectedVersion: 'no_stream', metadata: { businessId: 'acme-x', actor: 'system' } },
  );
  await engine.auth.issue({ name: 'acme', businessId: 'acme' });
  await engine.close();

  const warnings: unknown[] = [];
  const logger = Object.assign(Object.create(silentLogger), { warn: (o: unknown) => warnings.push(o) });
  const again = await open(logger);
  try {
    expect(warnings).toContainEqual({ businessIds: ['acme', 'acme-x'] });
    const more = await again.auth.issue({ name: 'second key', businessId: 'acme-x' });
    expect(more.businessId).toBe('acme-x');
    expect(await again.auth.collidingBusinesses()).toEqual([['acme', 'acme-x']]);
  } finally {
    await again.close();
  }
  expect(collidingBusinessIds(['a', 'a-b-c', 'a-b', 'b'])).toEqual([
    ['a', 'a-b-c'],
    ['a-b', 'a-b-c'],
    ['a', 'a-b'],
  ]);
}, 180_000);
