// Transaction ids and the references read model: how a decision is named, how a reference finds it again (after an
// upgrade from 24-digit ids too), and how a second process deciding the same reference is refused.
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { sha256Hex } from '../../src/digest.js';
import type { Engine } from '../../src/engine.js';
import { referenceKey, transactionStream, type TransactionDecidedData } from '../../src/monitoring/events.js';
import type { InstantRequest } from '../../src/monitoring/request-schema.js';
import { openDatabase } from '../../src/store/index.js';
import { openEngine, tempDir } from '../helpers.js';
import { tx } from './fixtures.js';

const USER_10M = 'count(by user over 10 minutes)';
const open = (dataDir: string, clock: ManualClock) => openEngine(dataDir, { clock });

async function withDir<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = tempDir();
  try {
    return await work(dir.path);
  } finally {
    dir.remove();
  }
}

const referenceRow = async (engine: Engine, reference: string) =>
  engine.db
    .selectFrom('tm_transaction_refs')
    .selectAll()
    .where('business_id', '=', 'default')
    .where('reference', '=', reference)
    .executeTakeFirst();

it('names a decision after the second it was made and its reference key, and records its reference', async () => {
  await withDir(async (dir) => {
    const clock = new ManualClock('2026-06-01T08:00:07.250Z');
    const engine = await open(dir, clock);
    const { transactionId } = await engine.decide(tx('REF-1'));
    expect(transactionId).toBe(`${(Date.parse('2026-06-01T08:00:07Z') / 1000).toString(16)}-${referenceKey('default', 'REF-1')}`);
    expect(await referenceRow(engine, 'REF-1')).toEqual({ business_id: 'default', reference: 'REF-1', transaction_id: transactionId });
    const [event] = await engine.store.readStream(transactionStream('default', transactionId));
    expect(event!.metadata).toMatchObject({ businessId: 'default', idempotencyKey: 'REF-1' });
    clock.advance(60_000);
    expect((await engine.decide(tx('REF-1'))).transactionId).toBe(transactionId);
    await engine.close();
  });
});

it('finds a decision recorded under a 24-digit id before references were kept, once the upgrade has caught up', async () => {
  await withDir(async (dir) => {
    const clock = new ManualClock('2026-06-01T08:00:00.000Z');
    let engine = await open(dir, clock);
    // A decision as the oldest code stored it: named after 24 hex digits of a hash of (business, reference).
    const current = (await engine.store.readStream(transactionStream('default', (await engine.decide(tx('LEG-0'))).transactionId)))[0]!
      .data as TransactionDecidedData;
    const legacyId = sha256Hex(['tm-tx', 'default', 'LEG-1'].join('\u0000')).slice(0, 24);
    const request = structuredClone(current.request) as InstantRequest;
    request.transactionData.reference = 'LEG-1';
    const legacy = {
      ...current,
      transactionId: legacyId,
      reference: 'LEG-1',
      request,
      requestHash: sha256Hex(JSON.stringify(request)),
      decision: { ...current.decision, transactionId: legacyId },
    };
    await engine.store.append(transactionStream('default', legacyId), [{ type: 'TransactionDecided', data: legacy }], {
      expectedVersion: 'no_stream',
      metadata: { businessId: 'default' },
    });
    await engine.close();

    // That database had neither the table nor a checkpoint for the references read model.
    const before = openDatabase(join(dir, 'compliance.db'));
    before.raw.exec(`drop table tm_transaction_refs; delete from projection_checkpoints where name = 'transaction-monitoring-references'`);
    await before.db.destroy();

    engine = await open(dir, clock);
    expect(await referenceRow(engine, 'LEG-1')).toMatchObject({ transaction_id: legacyId });
    expect((await engine.decide(tx('LEG-1'))).transactionId).toBe(legacyId);
    await expect(engine.decide(tx('LEG-1', { transactionData: { amount: 1 } }))).rejects.toMatchObject({ name: 'ConflictError' });
    expect((await engine.monitoring.getTransaction('default', legacyId)).reference).toBe('LEG-1');
    await engine.close();
  });
});

/**
 * Two engines on one database, each unaware of the other's decision until it reads the log: the second append of a
 * reference fails, the loser answers with the winner's decision, and its velocity counts the transaction once.
 */
async function race(secondsApart: number) {
  await withDir(async (dir) => {
    const clock = new ManualClock('2026-06-01T08:00:00.000Z');
    const later = new ManualClock(new Date(clock.now().getTime() + secondsApart * 1000));
    const first = await open(dir, clock);
    const second = await open(dir, later);
    const body = tx('RACE-1', { anonymizedUserData: { uniqueId: 'user-race' } });
    const winner = await first.decide(body);
    expect(await second.decide(body)).toEqual(winner);
    await expect(second.decide(tx('RACE-1', { transactionData: { amount: 1 } }))).rejects.toMatchObject({ name: 'ConflictError' });
    await second.store.catchUp();
    const next = await second.decide(tx('RACE-2', { anonymizedUserData: { uniqueId: 'user-race' } }));
    const stored = await second.monitoring.getTransaction('default', next.transactionId);
    expect(stored.features.velocity[USER_10M]).toBe('2');
    expect(await second.store.readAll({ types: ['TransactionDecided'], limit: 10 })).toHaveLength(2);
    await second.close();
    await first.close();
  });
}

it('refuses a reference another process decided in an earlier second, and answers with its decision', () => race(5));

it('refuses a reference another process decided in the same second (the same transaction id)', () => race(0));
