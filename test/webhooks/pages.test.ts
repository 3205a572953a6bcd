import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { Engine } from '../../src/engine.js';
import { verifyReplay } from '../../src/projections/index.js';
import { testEngine, type TestEngine } from '../helpers.js';
import { startReceiver, type Receiver } from './receiver.js';

let clock: ManualClock;
let t: TestEngine;
let receiver: Receiver;
let businessId: string;
const WORKER = { businessId: 'system', actor: 'webhook-worker' };

beforeEach(async () => {
  // Near the wall clock, so standardwebhooks' timestamp tolerance accepts the signatures.
  clock = new ManualClock(new Date());
  t = await testEngine({ clock, workerIntervalMs: 0 });
  // A key gives the business the webhook secret that signs deliveries to no endpoint of its own.
  businessId = (await t.engine.auth.issue({ name: 'hooks' })).businessId;
  receiver = await startReceiver();
});

afterEach(async () => {
  await t.close();
  await receiver.close();
});

async function schedule(engine: Engine, n: number): Promise<string[]> {
  const scheduled = Array.from({ length: n }, (_, i) =>
    engine.webhooks.deliveryWrite({ url: receiver.url, eventType: 'test', subject: `s-${i}`, payload: { i } }),
  );
  await engine.store.appendMany(
    scheduled.map((s) => s.write),
    { businessId, actor: 'test' },
  );
  return scheduled.map((s) => s.deliveryId);
}

const countOf = async (engine: Engine, type: string) => (await engine.store.readAll({ types: [type] })).length;

async function expectReplayEqual(engine: Engine): Promise<void> {
  const report = await verifyReplay(engine.db, engine.store, engine.projections);
  expect(report.diffs).toEqual([]);
  expect(report.ok).toBe(true);
}

/** What a worker that dies mid-page leaves: its page's claim, leased for 60 s, and the outcomes it recorded. */
async function diedMidPage(engine: Engine, ids: readonly string[], recorded: readonly string[]): Promise<void> {
  const now = clock.now();
  await engine.store.append(
    'webhook-claims',
    [
      {
        type: 'WebhookAttemptsStarted',
        data: {
          attempts: ids.map((deliveryId) => ({ deliveryId, attempt: 1 })),
          startedAt: now.toISOString(),
          leaseUntil: new Date(now.getTime() + 60e3).toISOString(),
        },
      },
    ],
    { metadata: WORKER },
  );
  await engine.store.append('webhook-outcomes-died', [{ type: 'WebhookAttemptsFinished', data: { outcomes: recorded.map(delivered) } }], {
    metadata: WORKER,
  });
}

const delivered = (deliveryId: string) => ({
  deliveryId,
  attempt: 1,
  finishedAt: clock.now().toISOString(),
  outcome: 'delivered' as const,
  statusCode: 200,
  error: null,
  durationMs: 3,
  nextAttemptAt: null,
});

describe('deliveries claimed and recorded in pages', () => {
  it('schedules a page of events out in one event, claims it in one, and still gives each delivery its own log', async () => {
    await t.engine.webhooks.endpoints.create({ businessId }, { url: receiver.url, eventTypes: ['report.status_changed'] });
    for (let i = 0; i < 30; i++) {
      await t.engine.store.append(`report-${businessId}-r${i}`, [{ type: 'ReportApproved', data: { reportId: `r${i}` } }], {
        metadata: { businessId, actor: 'u1' },
      });
    }
    expect(await t.engine.webhooks.forwardEvents()).toBe(30);
    expect(await t.engine.webhooks.runDue()).toBe(30);
    expect(receiver.received).toHaveLength(30);

    expect(await countOf(t.engine, 'WebhookDeliveriesScheduled')).toBe(1);
    expect(await countOf(t.engine, 'WebhookAttemptsStarted')).toBe(1);
    // Outcomes answered while an append is under way share the next one.
    expect(await countOf(t.engine, 'WebhookAttemptsFinished')).toBeLessThan(30);
    for (const type of ['WebhookDeliveryScheduled', 'WebhookAttemptStarted', 'WebhookAttemptFinished'])
      expect(await countOf(t.engine, type)).toBe(0);

    const { deliveries, total } = await t.engine.webhooks.list(businessId, { page: 1, limit: 50 });
    expect(total).toBe(30);
    for (const d of deliveries) {
      expect(d).toMatchObject({ status: 'delivered', attempts: 1, lastStatusCode: 200, eventType: 'report.status_changed' });
      expect(d.attemptLog).toEqual([expect.objectContaining({ attempt: 1, outcome: 'delivered', statusCode: 200 })]);
    }
    // A delivery scheduled in a page is sent again on request, its log growing by one attempt.
    await t.engine.webhooks.redeliver({ businessId }, deliveries[0]!.id);
    expect(await t.engine.webhooks.runDue()).toBe(1);
    expect((await t.engine.webhooks.get(businessId, deliveries[0]!.id)).attemptLog.map((a) => a.outcome)).toEqual([
      'delivered',
      'delivered',
    ]);
    await expectReplayEqual(t.engine);
  });

  it('reads a log of per-delivery attempt events and carries on from it in pages', async () => {
    const [retried, done] = await schedule(t.engine, 2);
    const at = clock.now().toISOString();
    const lease = new Date(clock.now().getTime() + 60e3).toISOString();
    for (const [id, outcome] of [
      [retried!, 'retry'],
      [done!, 'delivered'],
    ] as const) {
      await t.engine.store.append(
        `webhook-delivery-${id}`,
        [
          { type: 'WebhookAttemptStarted', data: { deliveryId: id, attempt: 1, startedAt: at, leaseUntil: lease } },
          {
            type: 'WebhookAttemptFinished',
            data: {
              deliveryId: id,
              attempt: 1,
              finishedAt: at,
              outcome,
              statusCode: outcome === 'retry' ? 500 : 200,
              error: outcome === 'retry' ? 'the receiver answered 500' : null,
              durationMs: 4,
              nextAttemptAt: outcome === 'retry' ? at : null,
            },
          },
        ],
        { expectedVersion: 1, metadata: { businessId, actor: 'webhook-worker' } },
      );
    }
    expect(await t.engine.webhooks.get(businessId, retried!)).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: 500 });
    expect(await t.engine.webhooks.runDue()).toBe(1);
    await t.engine.webhooks.redeliver({ businessId }, done!);
    expect(await t.engine.webhooks.runDue()).toBe(1);
    expect((await t.engine.webhooks.get(businessId, retried!)).attemptLog.map((a) => a.outcome)).toEqual(['retry', 'delivered']);
    expect((await t.engine.webhooks.get(businessId, done!)).attemptLog.map((a) => a.outcome)).toEqual(['delivered', 'delivered']);
    await expectReplayEqual(t.engine);
  });

  it('sends again, once the lease runs out, what a worker that died mid-page left unrecorded, and nothing it recorded', async () => {
    const dir = t.dir;
    const ids = await schedule(t.engine, 3);
    await diedMidPage(t.engine, ids, [ids[0]!]);
    await t.engine.close();
    const again = await testEngine({ clock, workerIntervalMs: 0, dataDir: dir });
    t = { ...again, close: async () => again.engine.close() };
    expect(await again.engine.webhooks.runDue()).toBe(0);
    clock.advance(61e3);
    expect(await again.engine.webhooks.runDue()).toBe(2);
    expect(await again.engine.webhooks.runDue()).toBe(0);
    expect(receiver.received.map((r) => (JSON.parse(r.body) as { i: number }).i).sort()).toEqual([1, 2]);
    expect(await again.engine.webhooks.get(businessId, ids[0]!)).toMatchObject({ status: 'delivered', attempts: 1 });
    for (const id of ids.slice(1)) {
      const d = await again.engine.webhooks.get(businessId, id);
      expect(d).toMatchObject({ status: 'delivered', attempts: 2 });
      expect(d.attemptLog.map((a) => a.outcome)).toEqual([null, 'delivered']);
    }
    await expectReplayEqual(again.engine);
  });

  it('keeps an outcome recorded after its lease ran out in the attempt log, without moving the delivery', async () => {
    const [id] = await schedule(t.engine, 1);
    await diedMidPage(t.engine, [id!], []);
    clock.advance(61e3);
    expect(await t.engine.webhooks.runDue()).toBe(1);
    // The first worker was slow, not dead: its outcome arrives after the second attempt's.
    await t.engine.store.append(
      'webhook-outcomes-late',
      [
        {
          type: 'WebhookAttemptsFinished',
          data: { outcomes: [{ ...delivered(id!), outcome: 'retry', statusCode: 500, nextAttemptAt: clock.now().toISOString() }] },
        },
      ],
      { metadata: WORKER },
    );
    const d = await t.engine.webhooks.get(businessId, id!);
    expect(d).toMatchObject({ status: 'delivered', attempts: 2, lastStatusCode: 200, nextAttemptAt: null });
    expect(d.attemptLog.map((a) => a.outcome)).toEqual(['retry', 'delivered']);
    expect(await t.engine.webhooks.runDue()).toBe(0);
    await expectReplayEqual(t.engine);
  });
});
