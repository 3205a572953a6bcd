import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { checkBusinessId, collidingBusinessIds } from '../../src/auth/index.js';
import { caseStream } from '../../src/cases/events.js';
import { transactionStream } from '../../src/monitoring/events.js';
import { openEngine, silentLogger, tempDir } from '../helpers.js';

let dir: ReturnType<typeof tempDir>;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => dir.remove());

const open = (logger = silentLogger) => openEngine(dir.path, { logger });

it("accepts a business id with '-', and business 'acme' with case 'x-1' and business 'acme-x' with case '1' write two streams", async () => {
  expect(caseStream('acme', 'x-1')).not.toBe(caseStream('acme-x', '1'));
  expect(caseStream('acme-x', '1')).toBe('case-acme%2Dx-1');
  expect(caseStream('acme', 'x-1')).toBe('case-acme-x-1');
  for (const good of ['acme', 'biz_0123abc', 'bank.ng', 'A1', 'my-switch']) expect(() => checkBusinessId(good)).not.toThrow();
  for (const bad of ['', 'a/b', 'a b', 'a%2Db', 'x'.repeat(65)]) expect(() => checkBusinessId(bad)).toThrow();
  const engine = await open();
  try {
    const issued = await engine.auth.issue({ name: 'my switch', businessId: 'my-switch' });
    expect(issued.businessId).toBe('my-switch');
    const tx = {
      transactionData: { reference: 'TX-1', amount: 25000, currency: 'NGN', senderAccount: '0123456789' },
      anonymizedUserData: { uniqueId: 'user-42', isIdentityVerified: true },
    };
    const decision = await engine.decide(tx, { businessId: 'my-switch' });
    const [stored] = await engine.store.readStream(`tm-tx-my%2Dswitch-${decision.transactionId}`);
    expect(stored?.type).toBe('TransactionDecided');
    expect((await engine.monitoring.getTransaction('my-switch', decision.transactionId)).transactionId).toBe(decision.transactionId);
    await expect(engine.decide(tx, { businessId: 'a/b' })).rejects.toMatchObject({ kind: 'validation', field: 'businessId' });
  } finally {
    await engine.close();
  }
}, 180_000);

it('reads an old log as it was written: the chain verifies, and each decision is found under its stored stream id', async () => {
  writeFileSync(
    join(dir.path, 'compliance.db'),
    gunzipSync(readFileSync(new URL('../fixtures/old-log/compliance.db.gz', import.meta.url))),
  );
  const warnings: unknown[] = [];
  const logger = Object.assign(Object.create(silentLogger), { warn: (o: unknown) => warnings.push(o) });
  const engine = await open(logger);
  try {
    expect((await engine.store.verifyChain()).ok).toBe(true);
    const streams = (await engine.store.readAll()).map((e) => e.streamId).filter((s) => s.startsWith('tm-tx-'));
    expect(streams).toEqual(['tm-tx-acme-6a1d5820-a4dd4da709fbdaf3', 'tm-tx-acme-x-6a1d5820-a9b6c020d795336d']);
    // 'acme-x' was made while business ids were written raw: its streams keep the raw id.
    expect(transactionStream('acme-x', '6a1d5820-a9b6c020d795336d')).toBe(streams[1]);
    expect((await engine.monitoring.getTransaction('acme', '6a1d5820-a4dd4da709fbdaf3')).transactionId).toBe('6a1d5820-a4dd4da709fbdaf3');
    expect((await engine.monitoring.getTransaction('acme-x', '6a1d5820-a9b6c020d795336d')).transactionId).toBe('6a1d5820-a9b6c020d795336d');
    expect(warnings).toContainEqual({ businessIds: ['acme', 'acme-x'] });
    // A new key of the old business keeps it old; a new business with '-' is encoded.
    await engine.auth.issue({ name: 'second key', businessId: 'acme-x' });
    await engine.auth.issue({ name: 'acme y', businessId: 'acme-y' });
    expect(await engine.auth.collidingBusinesses(await engine.auth.rawInStreamIds())).toEqual([['acme', 'acme-x']]);
  } finally {
    await engine.close();
  }
  const again = await open();
  try {
    expect([...(await again.auth.rawInStreamIds())]).toEqual(['acme-x']);
    expect(caseStream('acme-y', '1')).toBe('case-acme%2Dy-1');
  } finally {
    await again.close();
  }
}, 180_000);

it('pairs raw business ids one of which is the other plus "-…"', () => {
  expect(collidingBusinessIds(['a', 'a-b-c', 'a-b', 'b'])).toEqual([
    ['a', 'a-b-c'],
    ['a-b', 'a-b-c'],
    ['a', 'a-b'],
  ]);
});
