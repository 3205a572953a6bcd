import { afterAll, beforeAll, expect, it } from 'vitest';
import { testApi, type TestApi } from '../helpers.js';
import { tx } from './fixtures.js';

let api: TestApi;
beforeAll(async () => {
  api = await testApi();
});
afterAll(async () => api.close());

it("puts the alert of a decision other than approved on its user's case, in the same append as the decision", async () => {
  const body = tx('CASE-1', { transactionData: { amount: 4_800_000 }, anonymizedUserData: { uniqueId: 'user-case', isBanned: true } });
  const res = await api.call('POST', '/api/v1/transaction-monitoring/instant', { body });
  expect(res.body.data.action.result).toBe('rejected');
  const stored = await api.engine.monitoring.getTransaction(api.tenantA.businessId, res.body.data.transactionId);
  expect(stored.caseId).toEqual(expect.any(String));
  const kase = await api.engine.cases.get(api.tenantA.businessId, stored.caseId!);
  expect(kase).toMatchObject({
    module: 'transaction-monitoring',
    record: { id: 'user-case', type: 'user', name: 'user-case' },
    subject: 'user:user-case',
    priority: 'critical',
    status: 'open',
    alerts: [{ transactionId: res.body.data.transactionId, reference: 'CASE-1', action: 'rejected', priority: 'critical' }],
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

it('groups a decision without a user by its sending account', async () => {
  const listed = await api.call('POST', '/api/v1/transaction-monitoring/blacklist-account', { body: { accountNumber: '5550001' } });
  expect(listed.status).toBeLessThan(300);
  const body = tx('CASE-3', { transactionData: { senderAccount: '5550001' }, anonymizedUserData: null });
  const res = await api.call('POST', '/api/v1/transaction-monitoring/instant', { body });
  expect(res.body.data.action.result).toBe('rejected');
  const stored = await api.engine.monitoring.getTransaction(api.tenantA.businessId, res.body.data.transactionId);
  expect(await api.engine.cases.get(api.tenantA.businessId, stored.caseId!)).toMatchObject({
    subject: 'account:5550001',
    record: { type: 'account', id: '5550001', name: '5550001' },
  });
});
