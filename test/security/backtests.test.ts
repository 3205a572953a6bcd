// A backtest reads its own business's decisions only (through the index of decision positions), runs in a thread
// of its own, and no business can start more of them at once than the limits allow.
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { BusyError } from '../../src/errors.js';
import { decisionPositions } from '../../src/monitoring/projection.js';
import { testApi, type TestApi } from '../helpers.js';
import { tx } from '../monitoring/fixtures.js';

const BACKTEST = '/api/v1/transaction-monitoring/rules/backtest';
const CANDIDATE = {
  'candidate.rules': `rule BIG "Anything from 50k"\n  when transactionData.amount >= 50_000\n  score 50\n  reason C001 medium "50k or more"\nend\n`,
  'decide.rules': 'decide\n  review at 40\n  otherwise approved\nend\n',
};
const sources = { files: Object.entries(CANDIDATE).map(([path, text]) => ({ path, text })), lists: [] };

let api: TestApi;
let businessA: string;
let businessB: string;
beforeAll(async () => {
  api = await testApi({ backtests: { perBusiness: 1, total: 2 } });
  businessA = api.tenantA.businessId;
  businessB = api.tenantB.businessId;
  for (let i = 0; i < 3; i++)
    await api.call('POST', '/api/v1/transaction-monitoring/instant', { body: tx(`A-${i}`, { transactionData: { amount: 60_000 } }) });
  for (let i = 0; i < 5; i++)
    await api.call('POST', '/api/v1/transaction-monitoring/instant', {
      body: tx(`B-${i}`, { transactionData: { amount: 60_000 } }),
      key: api.tenantB,
    });
});
afterAll(() => api.close());
// A backtest runs on a thread the engine starts at its first backtest, which under tsx (the tests) loads the rules and the store from source: seconds.
vi.setConfig({ testTimeout: 120_000 });

it("indexes each business's decisions by position, and a backtest replays only the caller's", async () => {
  const upTo = api.engine.store.notifiedPosition;
  const a = await decisionPositions(api.engine.db, businessA, { after: 0, upTo, limit: 100 });
  const b = await decisionPositions(api.engine.db, businessB, { after: 0, upTo, limit: 100 });
  expect([a.length, b.length]).toEqual([3, 5]);
  const events = await api.engine.store.readPositions([...a, ...b]);
  expect(events.map((e) => e.metadata.businessId)).toEqual([...a.map(() => businessA), ...b.map(() => businessB)]);
  expect(events.every((e) => e.type === 'TransactionDecided')).toBe(true);

  const res = await api.call('POST', BACKTEST, { body: { files: CANDIDATE } });
  expect(res.body.data).toMatchObject({ decisions: 3, changed: 3, ruleHits: { BIG: { current: 0, candidate: 3 } } });
  const other = await api.call('POST', BACKTEST, { body: { files: CANDIDATE }, key: api.tenantB });
  expect(other.body.data).toMatchObject({ decisions: 5, changed: 5 });
});

it('refuses a second backtest of the same business while one runs, with 429 and Retry-After', async () => {
  const [first, second] = await Promise.all([
    api.call('POST', BACKTEST, { body: { files: CANDIDATE } }),
    api.call('POST', BACKTEST, { body: { files: CANDIDATE } }),
  ]);
  expect(first.status).toBe(200);
  expect(second.status).toBe(429);
  expect(second.headers.get('Retry-After')).toBe('10');
  expect(second.body.message).toBe('This business already runs 1 backtest, the most it may run at once: retry when it has finished');
  // Once the first is done, the business may run another.
  expect((await api.call('POST', BACKTEST, { body: { files: CANDIDATE } })).status).toBe(200);
});

it('refuses a backtest beyond the engine-wide limit, whatever the business', async () => {
  const monitoring = api.engine.monitoring;
  const running = [monitoring.backtest(businessA, sources), monitoring.backtest(businessB, sources)];
  await expect(monitoring.backtest('third-business', sources)).rejects.toThrow(
    new BusyError('The engine already runs 2 backtests, the most it runs at once: retry shortly', 10),
  );
  const reports = await Promise.all(running);
  expect(reports.map((r) => r.decisions)).toEqual([3, 5]);
  expect((await monitoring.backtest('third-business', sources)).decisions).toBe(0);
});

it('a candidate that does not compile is refused by name from the thread, and frees its slot', async () => {
  const res = await api.call('POST', BACKTEST, { body: { files: { 'x.rules': 'rule X' } } });
  expect(res.status).toBe(400);
  expect(res.body.message).toMatch(/^candidate rules do not compile: x\.rules:1:7 /);
  expect((await api.call('POST', BACKTEST, { body: { files: CANDIDATE } })).status).toBe(200);
});
