// Listings, reports and dashboards span a business's partitions: the same traffic decided by a business of one
// partition and by one of 64 (and of 8 on PostgreSQL, when there is one) reads the same, page for page, while each
// decision's rows lie in its own partition.
import fc from 'fast-check';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { Engine } from '../../src/engine.js';
import { PARTY_KINDS, type Party } from '../../src/monitoring/index.js';
import { decisionSubject, partitionOf, type SubjectFields } from '../../src/partitions/index.js';
import { decisionsBetween } from '../../src/reports/decision-days.js';
import { testEngine, type TestEngine } from '../helpers.js';
import { postgres } from '../postgres.js';
import { tx } from '../monitoring/fixtures.js';

const START = '2026-06-01T08:00:00.000Z';
const USERS = ['u1', 'u2', 'u3', 'u4'];
const ACCOUNTS = ['1000000001', '1000000002', '1000000003'];
const DEVICES = ['d1', 'd2'];

interface Sent {
  user: string | null;
  sender: string | null;
  receiver: string;
  device: string;
  big: boolean;
  /** Milliseconds the clock moves before it is decided. */
  after: number;
}

const traffic = fc.array(
  fc.record({
    user: fc.option(fc.constantFrom(...USERS)),
    sender: fc.option(fc.constantFrom(...ACCOUNTS)),
    receiver: fc.constantFrom(...ACCOUNTS),
    device: fc.constantFrom(...DEVICES),
    big: fc.boolean(),
    after: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3 * 3_600_000 })),
  }),
  { minLength: 1, maxLength: 24 },
);

interface Node {
  name: string;
  count: number;
  clock: ManualClock;
  t: TestEngine;
}

const request = (reference: string, s: Sent, at: string) =>
  tx(reference, {
    transactionData: { senderAccount: s.sender, receiverAccount: s.receiver, transactionDate: at, ...(s.big ? { amount: 6_000_000 } : {}) },
    anonymizedUserData: s.user === null ? null : { uniqueId: s.user },
    device: { deviceId: s.device },
  });

/** Case ids are drawn at random by each engine: a listing is compared by everything else. */
const withoutCaseIds = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, (key, v) => (['id', '_id', 'caseId'].includes(key) ? v !== null : v)));

async function allCasePages(engine: Engine, businessId: string, limit: number): Promise<unknown[]> {
  const pages: unknown[] = [];
  for (let page = 1; ; page++) {
    const { cases, total } = await engine.cases.list(businessId, {}, { page, limit });
    pages.push({ total, cases: withoutCaseIds(cases) });
    if (page * limit >= total) return pages;
  }
}

/** What every listing, report and dashboard figure of the business reads, in the order each shows it. */
async function readings(node: Node, businessId: string, first: string): Promise<unknown> {
  const { engine } = node.t;
  const parties: Party[] = PARTY_KINDS.flatMap((kind) =>
    (kind === 'user' ? USERS : kind === 'account' ? ACCOUNTS : DEVICES).map((value) => ({ kind, value })),
  );
  const now = node.clock.now().toISOString();
  const middle = new Date((Date.parse(first) + Date.parse(now)) / 2).toISOString();
  const between = async (from: string, to: string) => {
    const references: string[] = [];
    for await (const t of decisionsBetween(engine.db, engine.store, businessId, { from, to })) references.push(t.reference);
    return references;
  };
  const transactions: string[] = [];
  for await (const t of engine.monitoring.transactions(businessId)) transactions.push(t.reference);
  return {
    parties: await Promise.all(
      parties.flatMap((party) =>
        [1, 3, 200].map(async (limit) => withoutCaseIds(await engine.monitoring.decisionsOf(businessId, party, limit))),
      ),
    ),
    lastDay: await engine.monitoring.decisionStats(businessId, 24),
    lastYear: await engine.monitoring.decisionStats(businessId, 24 * 365),
    days: [await between(first, now), await between(first, middle), await between(middle, '9999-01-01T00:00:00.000Z')],
    transactions,
    cases: [await allCasePages(engine, businessId, 2), await allCasePages(engine, businessId, 50)],
    open: [...(await engine.cases.read.countsByStatus(businessId, {}))].sort(),
    rules: await engine.rulePerformance.report(businessId, { from: first.slice(0, 10), to: now.slice(0, 10) }),
  };
}

/** Each decision's rows in the read models keyed by partition, against the partition its subject hashes to. */
async function misplaced(node: Node, businessId: string): Promise<unknown[]> {
  const { engine } = node.t;
  const db = engine.db as Kysely<any>;
  const wrong: unknown[] = [];
  for await (const t of engine.monitoring.transactions(businessId)) {
    const expected = partitionOf(decisionSubject(t.request as SubjectFields), node.count);
    const at = await engine.monitoring.decisionPosition(businessId, t.transactionId);
    const rows = [
      ...(await db
        .selectFrom('tm_decisions')
        .select('partition')
        .where('business_id', '=', businessId)
        .where('transaction_id', '=', t.transactionId)
        .execute()),
      ...(await db
        .selectFrom('reports_decision_days')
        .select('partition')
        .where('business_id', '=', businessId)
        .where('position', '=', at)
        .execute()),
    ].map((r) => Number(r.partition));
    if (rows.length !== 2 || rows.some((p) => p !== expected)) wrong.push({ reference: t.reference, rows, expected });
  }
  return wrong;
}

describe('listings, reports and dashboards across partitions', () => {
  const nodes: Node[] = [];
  beforeAll(async () => {
    const shapes = [
      { name: 'one partition', count: 1, backend: 'sqlite' as const },
      { name: '64 partitions', count: 64, backend: 'sqlite' as const },
      ...(postgres.available ? [{ name: '8 partitions on PostgreSQL', count: 8, backend: '[postgres]' as const }] : []),
    ];
    for (const { name, count, backend } of shapes) {
      const clock = new ManualClock(START);
      nodes.push({ name, count, clock, t: await testEngine({ backend, clock, workerIntervalMs: 0, watchRules: false }) });
    }
  });
  afterAll(async () => {
    for (const node of nodes) await node.t.close();
  });

  it('reads the same from a business of one partition as from one of many: every party page, count, day, case page and rule figure', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(traffic, async (sent) => {
        const businessId = `spanning-${run++}`;
        const first = nodes[0]!.clock.now().toISOString();
        for (const node of nodes) await node.t.engine.partitions.fix({ businessId }, node.count);
        for (const [i, s] of sent.entries()) {
          const answers = [];
          for (const node of nodes) {
            node.clock.advance(s.after);
            const decided = await node.t.engine.decide(request(`SP-${i}`, s, node.clock.now().toISOString()), { businessId });
            answers.push({ ...decided, caseId: undefined });
          }
          for (const answer of answers.slice(1)) expect(answer).toEqual(answers[0]);
        }
        const [base, ...others] = await Promise.all(nodes.map((node) => readings(node, businessId, first)));
        for (const other of others) expect(other).toEqual(base);
        for (const node of nodes) expect(await misplaced(node, businessId)).toEqual([]);
      }),
      { numRuns: 12 },
    );
  }, 240_000);
});
