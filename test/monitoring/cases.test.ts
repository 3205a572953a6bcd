import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { newTransactionId, referenceKey } from '../../src/monitoring/events.js';
import { testApi, type TestApi } from '../helpers.js';
import { tx } from './fixtures.js';

let api: TestApi;
beforeAll(async () => {
  api = await testApi();
});
afterAll(async () => api.close());

it('opens a case for a decision other than approved, in the same append as the decision', async () => {
  const body = tx('CASE-1', { transactionData: { amount: 4_800_000 }, anonymizedUserData: { uniqueId: 'user-case', isBanned: true } });
  const res = await api.call('POST', '/api/v1/transaction-monitoring/instant', { body });
  expect(res.body.data.action.result).toBe('rejected');
  const stored = await api.engine.monitoring.getTransaction(api.tenantA.businessId, res.body.data.transactionId);
  expect(stored.caseId).toEqual(expect.any(String));
  const kase = await api.engine.cases.get(api.tenantA.businessId, stored.caseId!);
  expect(kase).toMatchObject({
    module: 'transaction-monitoring',
    record: { id: res.body.data.transactionId, type: 'transaction', name: 'CASE-1' },
    priority: 'critical',
    status: 'open',
  });
  const [decided] = await api.engine.store.readStream(`tm-tx-${api.tenantA.businessId}-${res.body.data.transactionId}`);
  const together = await api.engine.store.readAll({ after: decided!.position - 20, limit: 40 });
  const opened = together.find((e) => e.type === 'CaseOpened' && (e.data as { caseId: string }).caseId === stored.caseId);
  expect(opened?.metadata.requestId).toBe(decided!.metadata.requestId);
  expect(opened!.recordedAt).toBe(decided!.recordedAt);
});

it('opens no case for an approved decision', async () => {
  const res = await api.call('POST', '/api/v1/transaction-monitoring/instant', {
    body: tx('CASE-2', { anonymizedUserData: { uniqueId: 'user-calm' } }),
  });
  expect(res.body.data.action.result).toBe('approved');
  expect((await api.engine.monitoring.getTransaction(api.tenantA.businessId, res.body.data.transactionId)).caseId).toBeNull();
});

it('joins a case already opened for the transaction id before its first decision', async () => {
  // Another process deciding the same reference in the same second makes the same id and may open its case first.
  const clock = new ManualClock('2026-06-01T08:00:00.000Z');
  const clocked = await testApi({ clock });
  const transactionId = newTransactionId(referenceKey(clocked.tenantA.businessId, 'CASE-3'), clock.now().getTime());
  const existing = await clocked.engine.cases.open({
    businessId: clocked.tenantA.businessId,
    module: 'transaction-monitoring',
    record: { id: transactionId, type: 'transaction', name: 'CASE-3' },
    title: 'Opened by hand',
    description: 'before the transaction was decided',
    priority: 'low',
  });
  const body = tx('CASE-3', { transactionData: { amount: 4_800_000 }, anonymizedUserData: { uniqueId: 'user-case-3', isBanned: true } });
  const res = await clocked.call('POST', '/api/v1/transaction-monitoring/instant', { body });
  expect(res.status).toBe(200);
  expect(res.body.data.transactionId).toBe(transactionId);
  expect((await clocked.engine.monitoring.getTransaction(clocked.tenantA.businessId, transactionId)).caseId).toBe(existing._id);
  await clocked.close();
});
