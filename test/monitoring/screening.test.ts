import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { sha256Hex } from '../../src/digest.js';
import { transactionStream, type TransactionDecidedData } from '../../src/monitoring/events.js';
import { EventStore, openDatabase } from '../../src/store/index.js';
import { testEngine, type TestEngine } from '../helpers.js';

let t: TestEngine;
beforeAll(async () => {
  t = await testEngine();
});
afterAll(() => t.close());

const transfer = (reference: string, receiverName: string) => ({
  transactionData: { reference, amount: 15_000, currency: 'NGN', senderAccount: '0011223344', receiverAccount: '5566778899' },
  screeningData: { senderName: 'Chinedu Okafor', receiverName },
});

it('screens the receiver against the embedded sanctions lists in-process', async () => {
  const listed = await t.engine.decide(transfer('scr-1', 'Ayman al-Zawahiri'));
  const fired = listed.ruleResult?.map((r) => r.id) ?? [];
  expect(fired).toContain('SANCTIONS_RECEIVER');
  expect(listed.action.result).toBe('review');
  expect(listed.reason.code).toBe('SCR001');

  const clean = await t.engine.decide(transfer('scr-2', 'Chinwe Adebayo'));
  expect(clean.ruleResult?.map((r) => r.id) ?? []).not.toContain('SANCTIONS_RECEIVER');
});

it('keeps the screening score it consulted with the decision, whether the rule fired or not', async () => {
  const listed = await t.engine.decide(transfer('scr-3', 'Ayman al-Zawahiri'));
  const clean = await t.engine.decide(transfer('scr-4', 'Chinwe Adebayo'));
  const features = async (transactionId: string) => (await t.engine.monitoring.getTransaction('default', transactionId)).features;
  expect((await features(listed.transactionId)).screening).toEqual({ 'sanctions:Ayman al-Zawahiri': '100' });
  expect((await features(clean.transactionId)).screening).toEqual({ 'sanctions:Chinwe Adebayo': '0' });
});

it('keeps the IP country it looked up, null while no geolocation is connected', async () => {
  const decision = await t.engine.decide({ ...transfer('scr-5', 'Chinwe Adebayo'), ipAddress: '102.89.111.174' });
  const { features } = await t.engine.monitoring.getTransaction('default', decision.transactionId);
  expect(features.ipCountries).toEqual({ '102.89.111.174': null });
});

it('reads a decision recorded before scores were kept (schema version 1) with them unknown, not empty', async () => {
  const { transactionId } = await t.engine.decide(transfer('scr-6', 'Chinwe Adebayo'));
  const [current] = await t.engine.store.readStream(transactionStream('default', transactionId));
  expect(current!.schemaVersion).toBe(4);

  // Another process still running the version-1 code appends a decision the way it did.
  const opened = openDatabase(join(t.dir, 'compliance.db'));
  const old = new EventStore(opened.db, new ManualClock());
  await old.init();
  const v1 = structuredClone(current!.data as TransactionDecidedData);
  const { screening: _s, ipCountries: _i, ...features } = v1.features;
  // Version-1 code named a decision after 24 hex digits of a hash of (business, reference).
  const oldId = sha256Hex(['tm-tx', 'default', 'scr-7'].join('\u0000')).slice(0, 24);
  await old.append(
    transactionStream('default', oldId),
    [
      {
        type: 'TransactionDecided',
        data: { ...v1, transactionId: oldId, reference: 'scr-7', features, decision: { ...v1.decision, transactionId: oldId } },
      },
    ],
    {
      expectedVersion: 'no_stream',
      metadata: { businessId: 'default', actor: 'api' },
    },
  );
  await opened.db.destroy();

  await t.engine.store.catchUp();
  const stored = await t.engine.monitoring.getTransaction('default', oldId);
  expect(stored.reference).toBe('scr-7');
  expect(stored.features).toMatchObject({ screening: null, ipCountries: null, velocity: v1.features.velocity });
});
