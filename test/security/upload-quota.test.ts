import { afterEach, beforeEach, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { testApi, type TestApi } from '../helpers.js';
import { put } from '../uploads/helpers.js';

const MiB = 1024 * 1024;
let t: TestApi;
let clock: ManualClock;
beforeEach(async () => {
  clock = new ManualClock('2026-03-01T10:00:00.000Z');
  t = await testApi({ clock, workerIntervalMs: 0, uploadQuota: { pendingUrls: 3, bytes: 250 * MiB } });
});
afterEach(() => t.close());

const issue = (key = t.tenantA) => t.call('GET', '/api/v1/upload?fileType=txt&access=private', { key });

it('refuses an upload URL that would take the business past its upload bytes, counting pending URLs at their limit', async () => {
  // Each URL reserves its limit (100 MiB): two fit in 250 MiB, a third would not.
  const first = await issue();
  expect((await issue()).status).toBe(200);
  const overBytes = await issue();
  expect(overBytes).toMatchObject({
    status: 429,
    body: { error: 429, message: expect.stringContaining('would pass the limit of 262144000 bytes (UPLOAD_QUOTA_BYTES)') },
  });
  expect(overBytes.headers.get('Retry-After')).toBe('900');
  // Another business has a quota of its own.
  expect((await issue(t.tenantB)).status).toBe(200);

  // A used URL holds its bytes, not its limit.
  expect((await put(t, first.body.data.url, 'five!')).status).toBe(201);
  expect((await issue()).status).toBe(200);
  expect((await issue()).body.message).toBe(
    'upload storage quota reached: this business holds 5 bytes and its pending URLs may bring 209715200 more; another URL of up to 104857600 bytes would pass the limit of 262144000 bytes (UPLOAD_QUOTA_BYTES)',
  );
});

it('counts pending URLs until they expire, and says which limit was met', async () => {
  t.engine.uploads.quota.bytes = 10 * 1024 * MiB;
  for (let i = 0; i < 3; i++) expect((await issue()).status).toBe(200);
  const refused = await issue();
  expect(refused).toMatchObject({
    status: 429,
    body: {
      error: 429,
      message: expect.stringContaining('3 upload URLs of this business are pending (the limit is 3, UPLOAD_MAX_PENDING)'),
    },
  });
  expect(refused.headers.get('Retry-After')).toBe('900');
  // Concurrent requests cannot slip past the count together.
  clock.advance(15 * 60_000 + 1000);
  const burst = await Promise.all(Array.from({ length: 6 }, () => issue()));
  expect(burst.filter((r) => r.status === 200)).toHaveLength(3);
  expect(burst.filter((r) => r.status === 429)).toHaveLength(3);
});
