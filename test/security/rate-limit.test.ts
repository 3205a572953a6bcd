import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { DEFAULT_RATE_LIMITS, parseRateLimit, routeClassOf } from '../../src/rate-limits.js';
import { tx } from '../monitoring/fixtures.js';
import { testApi, type TestApi } from '../helpers.js';

// One engine for the file: each test spends the budget of a class of its own (decisions, writes).
let t: TestApi;
beforeAll(async () => {
  t = await testApi({
    workerIntervalMs: 0,
    rateLimits: { decisions: { limit: 3, windowMs: 1500 }, writes: { limit: 1, windowMs: 60_000 } },
  });
});
afterAll(() => t.close());

const decide = (reference: string, key = t.tenantA) =>
  t.call('POST', '/api/v1/transaction-monitoring/instant', { body: tx(reference), key });

it('answers 429 with Retry-After and a message naming the limit once a business passes it, whichever of its keys sent, and lets it through again after the window', async () => {
  // A second key of the same business draws on the same budget.
  const second = await t.engine.auth.issue({ name: 'tenant-a 2', businessId: t.tenantA.businessId });
  for (let i = 0; i < 3; i++) expect((await decide(`ok-${i}`, i === 1 ? second : t.tenantA)).status).toBe(200);
  expect((await decide('over-2', second)).status).toBe(429);
  const refused = await decide('over');
  expect(refused.status).toBe(429);
  expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThanOrEqual(1);
  expect(Number(refused.headers.get('Retry-After'))).toBeLessThanOrEqual(2);
  expect(refused.body).toEqual({
    error: 429,
    message: expect.stringMatching(
      /^Too many decision requests for this business: the limit is 3 per 1500 ms \(RATE_LIMIT_DECISIONS\); retry after \d s$/,
    ),
  });
  // Nothing of the refused request was recorded.
  expect((await t.call('GET', `/api/v1/transaction-monitoring/transactions/${'0'.repeat(24)}`)).status).toBe(404);

  // Another business, and the same business's other classes, have budgets of their own.
  expect((await decide('other-tenant', t.tenantB)).status).toBe(200);
  expect((await t.call('GET', '/api/v1/aml/lists')).status).toBe(200);

  await new Promise((r) => setTimeout(r, 1600));
  expect((await decide('over')).status).toBe(200);
});

it("answers in the host's error shape", async () => {
  const body = { title: 't', priority: 'low', module: 'transaction-monitoring', record: { id: 'r', type: 'transaction', name: 'n' } };
  expect((await t.call('POST', '/api/v1/case-management/case', { body })).status).toBe(201);
  const refused = await t.call('POST', '/api/v1/case-management/case', { body: { ...body, record: { ...body.record, id: 'r2' } } });
  expect(refused).toMatchObject({ status: 429, body: { message: expect.stringContaining('(RATE_LIMIT_WRITES)') } });
  expect(refused.body).not.toHaveProperty('error');
  expect(refused.headers.get('Retry-After')).toMatch(/^\d+$/);
});

it('sorts routes into classes and reads RATE_LIMIT_<CLASS> from the environment, refusing a bad one by name', () => {
  expect(routeClassOf('POST', '/api/v1/transaction-monitoring/instant')).toBe('decisions');
  expect(routeClassOf('POST', '/api/v1/transaction-monitoring/rules/backtest')).toBe('backtests');
  expect(routeClassOf('POST', '/api/v1/aml/screen')).toBe('screening');
  expect(routeClassOf('POST', '/api/v1/kyc/cac')).toBe('screening');
  expect(routeClassOf('GET', '/api/v1/upload')).toBe('uploads');
  expect(routeClassOf('GET', '/api/v1/aml/checks/x')).toBe('reads');
  expect(routeClassOf('PATCH', '/api/v1/cdd/customers/x')).toBe('writes');
  expect(parseRateLimit('X', '6/1m')).toEqual({ limit: 6, windowMs: 60_000 });
  expect(parseRateLimit('X', '100/250ms')).toEqual({ limit: 100, windowMs: 250 });
  expect(parseRateLimit('X', '500/s')).toEqual({ limit: 500, windowMs: 1000 });
  expect(parseRateLimit('X', 'off')).toBeNull();
  expect(loadConfig({ RATE_LIMIT_DECISIONS: '50/1s', RATE_LIMIT_BACKTESTS: 'off' }).rateLimits).toEqual({
    decisions: { limit: 50, windowMs: 1000 },
    backtests: null,
  });
  expect(() => loadConfig({ RATE_LIMIT_READS: 'lots' })).toThrow(/^RATE_LIMIT_READS must be requests per window/);
  expect(() => loadConfig({ RATE_LIMIT_READS: '0/1s' })).toThrow(/RATE_LIMIT_READS/);
  expect(() => loadConfig({ UPLOAD_MAX_PENDING: '-1' })).toThrow(/^UPLOAD_MAX_PENDING/);
  expect(DEFAULT_RATE_LIMITS.backtests).toEqual({ limit: 6, windowMs: 60_000 });
  // Decisions: none by default (a node's whole capacity; businesses take turns past DECISION_CONCURRENCY).
  expect(DEFAULT_RATE_LIMITS.decisions).toBeNull();
});
