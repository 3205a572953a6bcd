// A database whose decision read models predate their partition column migrates on start: the tables are rebuilt
// from the log, each decision in its partition, and agree with a replay of the log into a scratch database.
import { type Kysely, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine.js';
import { encodeDecided } from '../../src/monitoring/compact-decision.js';
import { newTransactionId, referenceKey, type TransactionDecidedData, transactionStream } from '../../src/monitoring/events.js';
import { decisionSubject, partitionOf, storedPartition, type SubjectFields } from '../../src/partitions/index.js';
import { verifyReplay } from '../../src/projections/index.js';
import { tx } from '../monitoring/fixtures.js';
import { openEngine, tempDir } from '../helpers.js';
import { BACKENDS, createTestDatabase, skipBackend } from '../postgres.js';

/** The layouts the two read models had before they were keyed by partition, with a row the rebuild must not keep. */
async function olderLayouts(db: Kysely<any>): Promise<void> {
  await sql`drop table tm_decisions`.execute(db);
  await sql`create table tm_decisions (business_id text not null, transaction_id text not null, reference text not null,
    decided_at bigint not null, action text not null, risk_score text not null, case_id text, fired text not null, user_id text,
    sender_account text, receiver_account text, device_id text, constraint tm_decisions_pk primary key (business_id, transaction_id))`.execute(
    db,
  );
  await sql`insert into tm_decisions values ('acme', 'stale', 'STALE', 0, 'approve', '0', null, '', null, null, null, null)`.execute(db);
  await sql`drop table reports_decision_days`.execute(db);
  await sql`create table reports_decision_days (business_id text not null, happened_at text not null, position integer not null,
    constraint reports_decision_days_pk primary key (business_id, happened_at, position))`.execute(db);
  await sql`insert into reports_decision_days values ('acme', '2026-01-01T00:00:00.000Z', 999999)`.execute(db);
}

type Row = Record<string, any>;

const rows = async (db: Kysely<any>): Promise<{ decisions: Row[]; days: Row[] }> => ({
  decisions: (await db.selectFrom('tm_decisions').selectAll().orderBy('transaction_id').execute()).map((r: Row) => ({
    ...r,
    decided_at: Number(r.decided_at),
  })),
  days: (await db.selectFrom('reports_decision_days').selectAll().orderBy('position').execute()).map((r) => ({
    ...r,
    position: Number(r.position),
  })),
});

const indexes = async (db: Kysely<any>, backend: string): Promise<string[]> => {
  const found =
    backend === 'postgres'
      ? await sql<{ name: string }>`select indexname as name from pg_indexes where tablename = 'reports_decision_days'`.execute(db)
      : await sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = 'reports_decision_days'`.execute(db);
  return found.rows.map((r) => r.name).sort();
};

async function decideSome(engine: Engine): Promise<void> {
  await engine.partitions.fix({ businessId: 'acme' }, 8);
  const subjects = [
    { anonymizedUserData: { uniqueId: 'user-a' } },
    { anonymizedUserData: { uniqueId: 'user-b' }, transactionData: { amount: 6_000_000 } },
    { anonymizedUserData: null, transactionData: { senderAccount: '2000000001' } },
    { anonymizedUserData: null, transactionData: { senderAccount: null } },
  ];
  for (const [i, patch] of subjects.entries()) {
    await engine.decide(tx(`UP-${i}`, patch), { businessId: 'acme' });
    // A business the log records no count for is placed under the default count.
    await engine.decide(tx(`UP-${i}`, patch), { businessId: 'uncounted' });
  }
  await storeWithoutPartition(engine);
  await engine.store.settleDeferred();
}

/**
 * A decision of `acme` as stored before decisions carried their partition: no partition in its metadata. Its user
 * hashes to a partition of 64 above 7, so that a placement under the business's count (8) would differ.
 */
async function storeWithoutPartition(engine: Engine): Promise<void> {
  const user = Array.from({ length: 64 }, (_, i) => `user-old-${i}`).find((u) => partitionOf({ kind: 'user', id: u }, 64) >= 8)!;
  const [first] = await engine.store.readAll({ types: ['TransactionDecided'], limit: 1 });
  const data = first!.data as TransactionDecidedData;
  const request = tx('UP-OLD', { anonymizedUserData: { uniqueId: user } });
  const transactionId = newTransactionId(referenceKey('acme', 'UP-OLD'), Date.parse(data.decidedAt));
  const old = { ...data, transactionId, reference: 'UP-OLD', request };
  await engine.store.appendMany(
    [{ streamId: transactionStream('acme', transactionId), events: [{ type: 'TransactionDecided', data: encodeDecided(old, null) }] }],
    { businessId: 'acme', actor: 'api', idempotencyKey: 'UP-OLD' },
  );
}

for (const backend of BACKENDS)
  describe.skipIf(skipBackend(backend))(`the decision read models keyed by partition (${backend})`, () => {
    it('rebuild a table of the older layout from the log at start, each decision in its partition, as a replay has them', async () => {
      const dir = tempDir();
      const database = backend === 'sqlite' ? undefined : await createTestDatabase();
      const options = { databaseUrl: database?.url };
      let engine = await openEngine(dir.path, options);
      try {
        await decideSome(engine);
        const before = await rows(engine.db);
        expect(before.decisions).toHaveLength(9);
        expect(before.days).toHaveLength(9);
        for await (const t of engine.monitoring.transactions('acme')) {
          // Stored without a partition: placed by its request under the default count.
          const count = t.reference === 'UP-OLD' ? 64 : 8;
          const expected = partitionOf(decisionSubject(t.request as SubjectFields), count);
          expect(before.decisions.find((r) => r.transaction_id === t.transactionId)?.partition).toBe(expected);
        }
        for await (const t of engine.monitoring.transactions('uncounted')) {
          const expected = partitionOf(decisionSubject(t.request as SubjectFields), 64);
          expect(before.decisions.find((r) => r.transaction_id === t.transactionId && r.business_id === 'uncounted')?.partition).toBe(
            expected,
          );
        }
        await olderLayouts(engine.db);
        await engine.close();

        engine = await openEngine(dir.path, options);
        await engine.store.settleDeferred();
        expect(await rows(engine.db)).toEqual(before);
        // The days table is its key, the one index its query ranges over, led by the distribution column.
        expect(await indexes(engine.db, engine.backend)).toEqual(engine.backend === 'postgres' ? ['reports_decision_days_pk'] : []);
        const report = await verifyReplay(engine.db, engine.store, engine.projections);
        expect(report.diffs).toEqual([]);
        expect(report.ok).toBe(true);
      } finally {
        await engine.close();
        await database?.drop();
        dir.remove();
      }
    }, 60_000);
  });

describe('a stored decision’s partition', () => {
  it('is its metadata’s, else its request’s under the default count, read defensively', () => {
    const request = { transactionData: { reference: 'R-1', senderAccount: '3000000001' }, anonymizedUserData: { uniqueId: 'user-z' } };
    expect(storedPartition({ partition: 5 }, request)).toBe(5);
    expect(storedPartition({}, request)).toBe(partitionOf({ kind: 'user', id: 'user-z' }, 64));
    expect(storedPartition({}, { transactionData: { reference: 'R-2', senderAccount: '3000000001' } })).toBe(
      partitionOf({ kind: 'account', id: '3000000001' }, 64),
    );
    expect(storedPartition({}, null)).toBe(partitionOf({ kind: 'transaction', id: '' }, 64));
  });
});
