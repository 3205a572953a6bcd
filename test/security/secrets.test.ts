import { afterAll, beforeAll, expect, it } from 'vitest';
import { secretMatches, hashSecret } from '../../src/auth/secrets.js';
import { loadConfig } from '../../src/config.js';
import { testEngine, type TestEngine } from '../helpers.js';

const long = 'x'.repeat(32);

it('refuses a BOOTSTRAP_API_SECRET or UPLOAD_SIGNING_SECRET under 32 characters, naming the variable', () => {
  expect(() => loadConfig({ BOOTSTRAP_API_SECRET: 'seven77' })).toThrow(/^BOOTSTRAP_API_SECRET must be at least 32 characters, got 7/);
  expect(() => loadConfig({ BOOTSTRAP_API_SECRET: 'x'.repeat(31) })).toThrow(/BOOTSTRAP_API_SECRET.*got 31/);
  expect(() => loadConfig({ UPLOAD_SIGNING_SECRET: 's3cret' })).toThrow(/^UPLOAD_SIGNING_SECRET must be at least 32 characters/);
  expect(loadConfig({ BOOTSTRAP_API_SECRET: long, UPLOAD_SIGNING_SECRET: long })).toMatchObject({
    bootstrapApiSecret: long,
    uploadSigningSecret: long,
  });
  expect(loadConfig({ BOOTSTRAP_API_SECRET: '' }).bootstrapApiSecret).toBeUndefined();
});

let t: TestEngine;
beforeAll(async () => {
  t = await testEngine({ workerIntervalMs: 0 });
});
afterAll(() => t.close());

it('refuses a chosen API secret under 32 characters, and verifies a long one by constant-time compare of its hash', async () => {
  await expect(t.engine.auth.issue({ name: 'weak', apiKey: 'ck_weak', apiSecret: 'seven77' })).rejects.toMatchObject({
    kind: 'validation',
    field: 'apiSecret',
    message: 'apiSecret must be at least 32 characters, got 7',
  });
  const key = await t.engine.auth.issue({ name: 'strong', apiKey: 'ck_strong', apiSecret: long });
  expect(await t.engine.auth.verify(key.apiKey, long)).toMatchObject({ businessId: key.businessId });
  expect(await t.engine.auth.verify(key.apiKey, `${long}y`)).toBeUndefined();
  expect(secretMatches(long, hashSecret(long))).toBe(true);
  expect(secretMatches(long, 'short')).toBe(false);
});
