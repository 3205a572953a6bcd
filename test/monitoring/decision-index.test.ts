// The decisions read model behind the console: a user's, account's or device's decisions, and a business's last
// day counted per action and per fired rule, on SQLite and on PostgreSQL.
import fc from 'fast-check';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { openEngine, tempDir, testEngine, type TestEngine } from '../helpers.js';
import { BACKENDS, createTestDatabase, skipBackend } from '../postgres.js';
import { tx } from './fixtures.js';

for (const backend of BACKENDS)
  describe.skipIf(skipBackend(backend))(`decisions by party and per day (${backend})`, () => {
    const clock = new ManualClock('2026-06-01T08:00:00.000Z');
    let t: TestEngine;
    beforeAll(async () => {
      t = await testEngine({ backend, clock, workerIntervalMs: 0, watchRules: false });
    });
    afterAll(async () => t.close());

    it("lists a user's, an account's and a device's decisions, newest first, within the business", async () => {
      const { engine } = t;
      const party = (user: string, sender: string, receiver: string, device: string) => ({
        anonymizedUserData: { uniqueId: user },
        transactionData: { senderAccount: sender, receiverAccount: receiver },
        device: { deviceId: device },
      });
      const a = await engine.decide(tx('P-1', party('user-p', '1111', '2222', 'dev-p')), { businessId: 'acme' });
      clock.advance(1000);
      const b = await engine.decide(tx('P-2', party('user-p', '3333', '1111', 'dev-q')), { businessId: 'acme' });
      clock.advance(1000);
      await engine.decide(tx('P-3', party('user-p', '1111', '2222', 'dev-p')), { businessId: 'tenantb' });
      const ids = async (kind: 'user' | 'account' | 'device', value: string) =>
        (await engine.monitoring.decisionsOf('acme', { kind, value })).map((d) => d.transactionId);
      expect(await ids('user', 'user-p')).toEqual([b.transactionId, a.transactionId]);
      // An account counts whether it sent or received.
      expect(await ids('account', '1111')).toEqual([b.transactionId, a.transactionId]);
      expect(await ids('account', '2222')).toEqual([a.transactionId]);
      expect(await ids('device', 'dev-q')).toEqual([b.transactionId]);
      expect(await ids('device', 'nobody')).toEqual([]);
      const [latest] = await engine.monitoring.decisionsOf('acme', { kind: 'user', value: 'user-p' });
      const stored = await engine.monitoring.getTransaction('acme', b.transactionId);
      expect(latest).toEqual({
        transactionId: b.transactionId,
        reference: 'P-2',
        decidedAt: stored.decidedAt,
        action: b.action.result,
        riskScore: b.riskScore,
        caseId: stored.caseId,
        fired: (b.ruleResult ?? []).map((r) => r.id),
      });
    });

    it('counts the last 24 hours per action and per fired rule, and forgets older decisions', async () => {
      const { engine } = t;
      const big = { transactionData: { amount: 6_000_000 } };
      await engine.decide(tx('S-OLD', big), { businessId: 'stats' });
      clock.advance(25 * 3_600_000);
      const flagged = await engine.decide(tx('S-1', big), { businessId: 'stats' });
      const quiet = await engine.decide(tx('S-2'), { businessId: 'stats' });
      const stats = await engine.monitoring.decisionStats('stats');
      expect(stats.decisions).toBe(2);
      expect(stats.byAction).toEqual(
        flagged.action.result === quiet.action.result
          ? { [quiet.action.result]: 2 }
          : { [flagged.action.result]: 1, [quiet.action.result]: 1 },
      );
      const fired = [flagged, quiet].flatMap((d) => d.ruleResult?.map((r) => r.id) ?? []);
      expect({ ...stats.ruleHits }).toEqual(
        Object.fromEntries([...new Set(fired)].map((id) => [id, fired.filter((f) => f === id).length])),
      );
      expect(stats.ruleHits.LIMIT_INDIVIDUAL).toBe(1);
      expect((await engine.monitoring.decisionStats('stats', 48)).decisions).toBe(3);
    });

    it('agrees with the decisions themselves: each party lists exactly the decisions naming it, and the counts add up', async () => {
      let run = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.record({ user: fc.constantFrom('u1', 'u2', 'u3'), device: fc.constantFrom('d1', 'd2'), big: fc.boolean() }), {
            minLength: 1,
            maxLength: 8,
          }),
          async (txs) => {
            const business = `prop${++run}`;
            const decided = [];
            for (const [i, x] of txs.entries()) {
              clock.advance(1000);
              const body = tx(`${business}-${i}`, {
                anonymizedUserData: { uniqueId: x.user },
                device: { deviceId: x.device },
                transactionData: { amount: x.big ? 6_000_000 : 25_000 },
              });
              decided.push({ ...x, decision: await t.engine.decide(body, { businessId: business }) });
            }
            for (const user of ['u1', 'u2', 'u3']) {
              const listed = await t.engine.monitoring.decisionsOf(business, { kind: 'user', value: user });
              const expected = decided.filter((d) => d.user === user).map((d) => d.decision.transactionId);
              expect(listed.map((d) => d.transactionId)).toEqual(expected.reverse());
            }
            const stats = await t.engine.monitoring.decisionStats(business);
            expect(stats.decisions).toBe(txs.length);
            expect(Object.values(stats.byAction).reduce((a, b) => a + b, 0)).toBe(txs.length);
            const hits = decided.flatMap((d) => d.decision.ruleResult?.map((r) => r.id) ?? []);
            for (const id of new Set(hits)) expect(stats.ruleHits[id]).toBe(hits.filter((h) => h === id).length);
          },
        ),
        { numRuns: 12 },
      );
    });
  });

for (const backend of BACKENDS)
  describe.skipIf(skipBackend(backend))(`decisions by party from a table with text times (${backend})`, () => {
    it('rebuilds the table from the log on start, with integer times', async () => {
      const clock = new ManualClock('2026-06-01T08:00:00.000Z');
      const dir = tempDir();
      const database = backend === '[postgres]' ? await createTestDatabase() : undefined;
      const open = () => openEngine(dir.path, { clock, databaseUrl: database?.url });
      let engine = await open();
      const decided = [];
      for (const reference of ['T-1', 'T-2']) {
        clock.advance(1000);
        decided.push(await engine.decide(tx(reference, { anonymizedUserData: { uniqueId: 'user-t' } }), { businessId: 'texts' }));
      }
      await engine.store.settleDeferred();
      // The table as ISO text times made it, caught up (its checkpoint at the head), one of its rows left.
      const db = engine.db as Kysely<any>;
      await db.schema.dropTable('tm_decisions').execute();
      await sql`create table tm_decisions (business_id text not null, transaction_id text not null, reference text not null,
        decided_at text not null, action text not null, risk_score text not null, case_id text, fired text not null,
        user_id text, sender_account text, receiver_account text, device_id text)`.execute(db);
      await db
        .insertInto('tm_decisions')
        .values({
          business_id: 'texts',
          transaction_id: decided[0]!.transactionId,
          reference: 'T-1',
          action: 'approved',
          decided_at: '2026-06-01T08:00:01.000Z',
          risk_score: '0',
          fired: '',
          user_id: 'user-t',
        })
        .execute();
      await engine.close();
      engine = await open();

      const listed = await engine.monitoring.decisionsOf('texts', { kind: 'user', value: 'user-t' });
      expect(listed.map((d) => d.transactionId)).toEqual(decided.map((d) => d.transactionId).reverse());
      for (const summary of listed)
        expect(summary.decidedAt).toBe((await engine.monitoring.getTransaction('texts', summary.transactionId)).decidedAt);
      expect((await engine.monitoring.decisionStats('texts')).decisions).toBe(2);
      await engine.close();
      engine = await open();
      expect(await engine.monitoring.decisionsOf('texts', { kind: 'user', value: 'user-t' })).toEqual(listed);
      await engine.close();
      await database?.drop();
      dir.remove();
    }, 60_000);
  });
