import { rmSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { Engine } from '../../src/engine.js';
import { RETRY_DELAYS_MS } from '../../src/webhooks/index.js';
import { testEngine, type TestEngine } from '../helpers.js';
import { abandonedAttempt, startReceiver, webhookHeaders, type Receiver } from './receiver.js';

let clock: ManualClock;
let t: TestEngine;
let receiver: Receiver;
let businessId: string;
let secret: string;

beforeEach(async () => {
  // Near the wall clock, so standardwebhooks' timestamp tolerance accepts the first attempt's signature.
  clock = new ManualClock(new Date());
  t = await testEngine({ clock, workerIntervalMs: 0 });
  const key = await t.engine.auth.issue({ name: 'hooks' });
  businessId = key.businessId;
  secret = key.webhookSecret;
  receiver = await startReceiver();
});

afterEach(async () => {
  await t.close();
  await receiver.close();
});

async function schedule(engine: Engine, payload: unknown = { hello: 'world' }): Promise<string> {
  const { deliveryId, write } = engine.webhooks.deliveryWrite({ url: receiver.url, eventType: 'test', subject: 'subject-1', payload });
  await engine.store.appendMany([write], { businessId, actor: 'test' });
  return deliveryId;
}

describe('webhook delivery', () => {
  it('signs with Standard Webhooks headers that verify with the standardwebhooks library', async () => {
    await schedule(t.engine);
    expect(await t.engine.webhooks.runDue()).toBe(1);
    expect(receiver.received).toHaveLength(1);
    const [hit] = receiver.received;
    expect(new Webhook(secret).verify(hit!.body, webhookHeaders(hit!.headers))).toEqual({ hello: 'world' });
    expect(hit!.headers['webhook-id']).toMatch(/^msg_/);
  });

  it('sends a page of deliveries, each once, over a few kept-alive connections', async () => {
    const ids = await Promise.all(Array.from({ length: 40 }, (_, i) => schedule(t.engine, { n: i })));
    expect(await t.engine.webhooks.runDue()).toBe(40);
    expect(receiver.received.map((r) => (JSON.parse(r.body) as { n: number }).n).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 40 }, (_, i) => i),
    );
    // At most one connection per lane of the worker, not one per delivery.
    expect(receiver.connections()).toBeLessThanOrEqual(8);
    for (const id of ids) expect(await t.engine.webhooks.get(businessId, id)).toMatchObject({ status: 'delivered', attempts: 1 });
  });

  it('signs with the current and the previous secret during a rotation', async () => {
    const rotated = await t.engine.auth.rotateWebhookSecret(businessId);
    await schedule(t.engine);
    await t.engine.webhooks.runDue();
    const [hit] = receiver.received;
    expect(String(hit!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const s of [secret, rotated]) expect(new Webhook(s).verify(hit!.body, webhookHeaders(hit!.headers))).toEqual({ hello: 'world' });
  });

  it('retries with backoff, keeps the webhook-id and body, and stops once delivered', async () => {
    receiver.answer({ status: 500 }, { status: 503 });
    const id = await schedule(t.engine);
    await t.engine.webhooks.runDue();
    let d = await t.engine.webhooks.get(businessId, id);
    expect(d).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: 500 });
    const delay = Date.parse(d.nextAttemptAt!) - clock.now().getTime();
    expect(delay).toBeGreaterThanOrEqual(RETRY_DELAYS_MS[0] * 0.8);
    expect(delay).toBeLessThanOrEqual(RETRY_DELAYS_MS[0] * 1.2);

    expect(await t.engine.webhooks.runDue()).toBe(0);
    clock.advance(RETRY_DELAYS_MS[0] * 1.2);
    await t.engine.webhooks.runDue();
    d = await t.engine.webhooks.get(businessId, id);
    expect(d).toMatchObject({ status: 'pending', attempts: 2, lastStatusCode: 503 });
    const second = Date.parse(d.nextAttemptAt!) - clock.now().getTime();
    expect(second).toBeGreaterThanOrEqual(RETRY_DELAYS_MS[1] * 0.8);

    clock.advance(RETRY_DELAYS_MS[1] * 1.2);
    await t.engine.webhooks.runDue();
    d = await t.engine.webhooks.get(businessId, id);
    expect(d).toMatchObject({ status: 'delivered', attempts: 3, lastStatusCode: 200, nextAttemptAt: null });
    expect(d.attemptLog.map((a) => a.outcome)).toEqual(['retry', 'retry', 'delivered']);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(new Set(receiver.received.map((r) => r.body)).size).toBe(1);

    clock.advance(48 * 3600e3);
    expect(await t.engine.webhooks.runDue()).toBe(0);
    expect(receiver.received).toHaveLength(3);
  });

  it('stops retrying on 410 Gone', async () => {
    receiver.answer({ status: 410 });
    const id = await schedule(t.engine);
    await t.engine.webhooks.runDue();
    clock.advance(48 * 3600e3);
    await t.engine.webhooks.runDue();
    expect(receiver.received).toHaveLength(1);
    expect(await t.engine.webhooks.get(businessId, id)).toMatchObject({ status: 'failed', lastStatusCode: 410, nextAttemptAt: null });
  });

  it('honours Retry-After', async () => {
    receiver.answer({ status: 429, headers: { 'Retry-After': '3600' } });
    const id = await schedule(t.engine);
    const before = clock.now().getTime();
    await t.engine.webhooks.runDue();
    const d = await t.engine.webhooks.get(businessId, id);
    expect(Date.parse(d.nextAttemptAt!) - before).toBeGreaterThanOrEqual(3600e3);
    clock.advance(10 * 60e3);
    expect(await t.engine.webhooks.runDue()).toBe(0);
    clock.advance(51 * 60e3);
    expect(await t.engine.webhooks.runDue()).toBe(1);
    expect(receiver.received).toHaveLength(2);
  });

  it('gives up after the last scheduled retry', async () => {
    receiver.answer(...Array.from({ length: RETRY_DELAYS_MS.length + 1 }, () => ({ status: 500 })));
    const id = await schedule(t.engine);
    for (let i = 0; i <= RETRY_DELAYS_MS.length; i++) {
      await t.engine.webhooks.runDue();
      clock.advance(30 * 3600e3);
    }
    await t.engine.webhooks.runDue();
    const d = await t.engine.webhooks.get(businessId, id);
    expect(d).toMatchObject({ status: 'failed', attempts: RETRY_DELAYS_MS.length + 1 });
    expect(receiver.received).toHaveLength(RETRY_DELAYS_MS.length + 1);
  });

  it('counts a refused connection as a failed attempt and retries it', async () => {
    const { deliveryId, write } = t.engine.webhooks.deliveryWrite({
      url: 'http://127.0.0.1:1/nothing',
      eventType: 'test',
      subject: 's',
      payload: {},
    });
    await t.engine.store.appendMany([write], { businessId, actor: 'test' });
    await t.engine.webhooks.runDue();
    const d = await t.engine.webhooks.get(businessId, deliveryId);
    expect(d.status).toBe('pending');
    expect(d.lastError).toMatch(/ECONNREFUSED/);
  });

  it('never sends one delivery twice when workers run side by side', async () => {
    await schedule(t.engine);
    const made = await Promise.all([t.engine.webhooks.runDue(), t.engine.webhooks.runDue(), t.engine.webhooks.runDue()]);
    expect(made.reduce((a, b) => a + b, 0)).toBe(1);
    expect(receiver.received).toHaveLength(1);
  });

  it('redelivers on request with the same webhook-id', async () => {
    const id = await schedule(t.engine);
    await t.engine.webhooks.runDue();
    await t.engine.webhooks.redeliver({ businessId }, id);
    await t.engine.webhooks.runDue();
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]!.headers['webhook-id']).toBe(receiver.received[0]!.headers['webhook-id']);
  });
});

describe('webhook delivery across restarts', () => {
  it('delivers exactly once a delivery scheduled before a restart', async () => {
    const dir = t.dir;
    const id = await schedule(t.engine);
    await t.engine.close();
    const again = await testEngine({ clock, workerIntervalMs: 0, dataDir: dir });
    try {
      expect(await again.engine.webhooks.runDue()).toBe(1);
      expect(await again.engine.webhooks.runDue()).toBe(0);
      clock.advance(48 * 3600e3);
      expect(await again.engine.webhooks.runDue()).toBe(0);
      expect(receiver.received).toHaveLength(1);
      expect((await again.engine.webhooks.get(businessId, id)).status).toBe('delivered');
    } finally {
      await again.engine.close();
      rmSync(dir, { recursive: true, force: true });
    }
    t = await testEngine({ clock, workerIntervalMs: 0 });
  });

  it('resumes an attempt lost in a crash once its lease runs out, and only then', async () => {
    const dir = t.dir;
    const id = await schedule(t.engine);
    // The process took the delivery and died before recording the outcome.
    await abandonedAttempt(t.engine.store, id, businessId, clock.now());
    await t.engine.close();
    const again = await testEngine({ clock, workerIntervalMs: 0, dataDir: dir });
    try {
      expect(await again.engine.webhooks.runDue()).toBe(0);
      clock.advance(61e3);
      expect(await again.engine.webhooks.runDue()).toBe(1);
      expect(await again.engine.webhooks.runDue()).toBe(0);
      expect(receiver.received).toHaveLength(1);
      const d = await again.engine.webhooks.get(businessId, id);
      expect(d).toMatchObject({ status: 'delivered', attempts: 2 });
      expect(d.attemptLog.map((a) => a.outcome)).toEqual([null, 'delivered']);
    } finally {
      await again.engine.close();
      rmSync(dir, { recursive: true, force: true });
    }
    t = await testEngine({ clock, workerIntervalMs: 0 });
  });
});
