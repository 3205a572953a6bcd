import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partitionOf } from '../../src/partitions/index.js';
import { testApi, type TestApi } from '../helpers.js';
import { BACKENDS, skipBackend } from '../postgres.js';
import { tx } from './fixtures.js';

// The instant route's idempotency, on SQLite and on PostgreSQL.
for (const backend of BACKENDS)
  describe.skipIf(skipBackend(backend))(`instant route idempotency (${backend})`, () => {
    let api: TestApi;
    beforeAll(async () => {
      api = await testApi({ backend });
    });
    afterAll(async () => api.close());

    const INSTANT = '/api/v1/transaction-monitoring/instant';
    const USER_10M = 'count(by user over 10 minutes)';
    const decisionCount = async () => (await api.engine.store.readAll({ types: ['TransactionDecided'], limit: 10_000 })).length;

    it('returns the stored decision for a resubmitted reference and does not count it twice', async () => {
      const body = tx('IDEM-1', { anonymizedUserData: { uniqueId: 'user-idem' } });
      const first = await api.call('POST', INSTANT, { body });
      const again = await api.call('POST', INSTANT, { body: JSON.parse(JSON.stringify(body)) });
      expect(first.status).toBe(200);
      expect(again).toMatchObject({ status: 200, body: first.body });
      const next = await api.call('POST', INSTANT, { body: tx('IDEM-2', { anonymizedUserData: { uniqueId: 'user-idem' } }) });
      const stored = await api.engine.monitoring.getTransaction(api.tenantA.businessId, next.body.data.transactionId);
      expect(stored.features.velocity[USER_10M]).toBe('2');
    });

    it('recognises the same body with its keys in another order', async () => {
      const body = tx('IDEM-ORDER');
      const reordered = Object.fromEntries(Object.entries(body).reverse());
      const a = await api.call('POST', INSTANT, { body });
      const b = await api.call('POST', INSTANT, { body: reordered });
      expect(b.body).toEqual(a.body);
    });

    it('takes a null field, a null group and a group of nulls as absent when a reference comes again', async () => {
      const body = tx('IDEM-NULLS', { device: null });
      const first = await api.call('POST', INSTANT, { body });
      const retries = [
        { ...body, transactionData: { ...(body.transactionData as object), vasReceiver: null } },
        { ...body, device: null },
        { ...body, device: { deviceId: null, osName: null } },
      ];
      for (const retry of retries)
        expect(await api.call('POST', INSTANT, { body: retry })).toMatchObject({ status: 200, body: first.body });
      const changed = await api.call('POST', INSTANT, { body: { ...body, device: { deviceId: 'dev-new' } } });
      expect(changed.status).toBe(409);
    });

    it('answers 409 when a reference is reused with a different body', async () => {
      await api.call('POST', INSTANT, { body: tx('IDEM-3') });
      const res = await api.call('POST', INSTANT, { body: tx('IDEM-3', { transactionData: { amount: 26_000 } }) });
      expect(res).toMatchObject({
        status: 409,
        body: { error: 409, message: 'transactionData.reference IDEM-3 was already used for a different transaction' },
      });
    });

    it('answers 409 for a reference reused by a subject of another partition, and the same body its first decision', async () => {
      const count = await api.engine.partitions.count(api.tenantA.businessId);
      const partition = (user: string) => partitionOf({ kind: 'user', id: user }, count);
      const far = Array.from({ length: 16 }, (_, i) => `user-far-${i}`).find((u) => partition(u) !== partition('user-near'))!;
      // Accounts of their own and no device: transfers into one receiver, or users on one device, are signals of their own.
      const of = (reference: string, uniqueId: string) =>
        tx(reference, {
          anonymizedUserData: { uniqueId },
          transactionData: { senderAccount: '7770000001', receiverAccount: '7770000002' },
          device: null,
        });
      const body = of('IDEM-PART', 'user-near');
      const first = await api.call('POST', INSTANT, { body });
      const moved = await api.call('POST', INSTANT, { body: of('IDEM-PART', far) });
      expect(moved).toMatchObject({
        status: 409,
        body: { error: 409, message: 'transactionData.reference IDEM-PART was already used for a different transaction' },
      });
      expect(await api.call('POST', INSTANT, { body })).toMatchObject({ status: 200, body: first.body });
      // Both at once: one decision, in its own partition; the other is refused.
      const racing = await Promise.all(
        ['user-near', far].map((uniqueId) => api.call('POST', INSTANT, { body: of('IDEM-PART-2', uniqueId) })),
      );
      expect(racing.map((r) => r.status).sort()).toEqual([200, 409]);
      const decided = (await api.engine.store.readAll({ types: ['TransactionDecided'], limit: 10_000 })).filter((e) =>
        e.metadata.idempotencyKey?.startsWith('IDEM-PART'),
      );
      expect(decided.map((e) => e.metadata.partition)).toEqual([
        partition('user-near'),
        partition(racing[0]!.status === 200 ? 'user-near' : far),
      ]);
    });

    it('makes one decision for concurrent requests with the same reference', async () => {
      const before = await decisionCount();
      const body = tx('IDEM-RACE', { anonymizedUserData: { uniqueId: 'user-race' } });
      const results = await Promise.all(Array.from({ length: 8 }, () => api.call('POST', INSTANT, { body })));
      expect(new Set(results.map((r) => JSON.stringify(r.body))).size).toBe(1);
      expect(await decisionCount()).toBe(before + 1);
      const conflicting = await Promise.all([
        api.engine.monitoring.decide({ businessId: api.tenantA.businessId }, tx('IDEM-RACE-2')),
        api.engine.monitoring
          .decide({ businessId: api.tenantA.businessId }, tx('IDEM-RACE-2', { transactionData: { amount: 1 } }))
          .catch((e: Error) => e.name),
      ]);
      expect(conflicting[1]).toBe('ConflictError');
    });

    it('keeps references per business: the same reference in two businesses is two decisions', async () => {
      const a = await api.call('POST', INSTANT, { body: tx('SHARED-REF') });
      const b = await api.call('POST', INSTANT, { body: tx('SHARED-REF', { transactionData: { amount: 1 } }), key: api.tenantB });
      expect(b.status).toBe(200);
      expect(b.body.data.transactionId).not.toBe(a.body.data.transactionId);
      const other = await api.call('GET', `/api/v1/transaction-monitoring/transactions/${a.body.data.transactionId}`, { key: api.tenantB });
      expect(other).toMatchObject({ status: 404, body: { error: 404, message: 'Transaction not found' } });
      const own = await api.call('GET', `/api/v1/transaction-monitoring/transactions/${a.body.data.transactionId}`);
      expect(own.body.data).toMatchObject({
        ...a.body.data,
        reference: 'SHARED-REF',
        rulesetVersion: api.engine.monitoring.rulesetVersion,
      });
    });

    it('counts each new decision once by result in monitoring_decisions_total, not its resubmissions', async () => {
      const counted = async () => {
        const { values } = await api.engine.metrics.decisions.get();
        return Object.fromEntries(values.map((v) => [v.labels.result, v.value]));
      };
      const before = await counted();
      const body = tx('METRIC-1', { anonymizedUserData: { uniqueId: 'user-metric' } });
      await api.call('POST', INSTANT, { body });
      await api.call('POST', INSTANT, { body });
      await api.call('POST', `${INSTANT.replace('/instant', '')}/blacklist-user`, { body: { userId: 'user-metric-bad' } });
      const rejected = await api.call('POST', INSTANT, { body: tx('METRIC-2', { anonymizedUserData: { uniqueId: 'user-metric-bad' } }) });
      expect(rejected.body.data.action.result).toBe('rejected');
      const after = await counted();
      expect((after.approved ?? 0) - (before.approved ?? 0)).toBe(1);
      expect((after.rejected ?? 0) - (before.rejected ?? 0)).toBe(1);
      const exposed = await api.call('GET', '/metrics', { key: null });
      expect(exposed.body).toMatch(/monitoring_decisions_total\{result="rejected"\} [1-9]/);
    });
  });
