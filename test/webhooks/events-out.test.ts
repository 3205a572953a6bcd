import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { RETRY_DELAYS_MS } from '../../src/webhooks/index.js';
import type { EVENT_TYPES } from '../../src/webhooks/events.js';
import { individual } from '../cdd/fixtures.js';
import { tx } from '../monitoring/fixtures.js';
import { testEngine, type TestEngine } from '../helpers.js';
import { startReceiver, webhookHeaders, type Receiver } from './receiver.js';

type EventType = (typeof EVENT_TYPES)[number];

// Near the wall clock, so standardwebhooks' timestamp tolerance accepts the signatures; moved to make retries due.
const clock = new ManualClock(new Date());
let t: TestEngine;
const receivers: Receiver[] = [];

// One engine for the file (a start indexes the bundled lists); each test has businesses of its own.
beforeAll(async () => {
  t = await testEngine({ clock, workerIntervalMs: 0 });
}, 180_000);
afterAll(async () => t.close());
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.close();
});

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

/** Forwards what the log holds to the outbox and attempts every delivery, as the background loops do. */
async function flush(): Promise<void> {
  await t.engine.webhooks.forwardEvents();
  await t.engine.webhooks.runDue();
}

/** What a receiver got, verified with the endpoint's secret by the standardwebhooks library. */
function verified(r: Receiver, secret: string): { type: EventType; timestamp: string; data: Record<string, any> }[] {
  return r.received.map((hit) => new Webhook(secret).verify(hit.body, webhookHeaders(hit.headers)) as never);
}

const flagged = (reference: string, uniqueId = 'user-flag') =>
  tx(reference, { transactionData: { amount: 4_800_000 }, anonymizedUserData: { uniqueId, isBanned: true } });

describe('events out', () => {
  it('delivers each of the nine event types, signed with the endpoint secret', async () => {
    const businessId = 'nine';
    const r = await receiver();
    const { secret } = await t.engine.webhooks.endpoints.create(
      { businessId },
      {
        url: r.url,
        eventTypes: [
          'decision.created',
          'decision.flagged',
          'case.created',
          'case.updated',
          'case.status_changed',
          'case.alert_added',
          'cdd.request.completed',
          'screening.match.found',
          'report.status_changed',
        ],
      },
    );
    const decision = await t.engine.decide(flagged('EV-1'), { businessId });
    const { caseId } = await t.engine.monitoring.getTransaction(businessId, decision.transactionId);
    await t.engine.cases.update({ businessId }, caseId!, { priority: 'low' });
    await t.engine.cases.update({ businessId }, caseId!, { status: 'in progress' });
    // The decision raised a real alert on its case; a goAML report's event is appended in the shape src/reports records.
    await t.engine.store.append(`report-${businessId}-rep1`, [{ type: 'ReportApproved', data: { reportId: 'rep1' } }], {
      metadata: { businessId, actor: 'u1' },
    });
    await t.engine.cdd.customers.create({ businessId }, individual('ev-cust') as never);
    const { requestId } = await t.engine.cdd.requests.start(
      { businessId },
      { customerUniqueId: 'ev-cust', workflowSlug: 'individual-standard' },
    );
    await t.engine.cdd.runPending();
    const check = await t.engine.screening.screenAndRecord({ businessId }, { name: 'Vladimir Putin' });

    await flush();
    const got = verified(r, secret);
    const byType = new Map(got.map((e) => [e.type, e]));
    expect([...byType.keys()].sort()).toEqual([
      'case.alert_added',
      'case.created',
      'case.status_changed',
      'case.updated',
      'cdd.request.completed',
      'decision.created',
      'decision.flagged',
      'report.status_changed',
      'screening.match.found',
    ]);
    expect(byType.get('decision.created')!.data).toEqual({
      transactionId: decision.transactionId,
      reference: 'EV-1',
      action: 'rejected',
      riskScore: decision.riskScore,
      ruleIds: decision.ruleResult!.map((x) => x.id),
      caseId,
      decidedAt: expect.any(String),
    });
    expect(byType.get('decision.flagged')!.data).toEqual(byType.get('decision.created')!.data);
    expect(byType.get('case.created')!.data).toMatchObject({
      caseId,
      status: 'open',
      record: { type: 'user', id: 'user-flag' },
    });
    expect(byType.get('case.updated')!.data).toMatchObject({ caseId, change: 'priority' });
    expect(byType.get('case.status_changed')!.data).toMatchObject({ caseId, from: 'open', to: 'in progress' });
    expect(byType.get('case.alert_added')!.data).toEqual({
      caseId,
      transactionId: decision.transactionId,
      reference: 'EV-1',
      action: decision.action.result,
      score: decision.riskScore,
      priority: expect.any(String),
      ruleIds: decision.ruleResult!.map((rule) => rule.id),
      decidedAt: expect.any(String),
      addedAt: expect.any(String),
    });
    expect(byType.get('cdd.request.completed')!.data).toEqual({
      requestId,
      riskScore: expect.any(Number),
      completedAt: expect.any(String),
    });
    expect(byType.get('screening.match.found')!.data).toMatchObject({ checkId: check.checkId, matches: { sanction: expect.any(Number) } });
    expect(byType.get('screening.match.found')!.data.matches.sanction).toBeGreaterThan(0);
    expect(byType.get('report.status_changed')!.data).toEqual({ reportId: 'rep1', status: 'approved', changedAt: expect.any(String) });
    for (const e of got) expect(Date.parse(e.timestamp)).not.toBeNaN();

    const deliveries = await t.engine.webhooks.list(businessId, { page: 1, limit: 50 });
    expect(deliveries.deliveries.every((d) => d.status === 'delivered')).toBe(true);
    expect(deliveries.total).toBe(got.length);
  });

  it('sends an approved decision as decision.created only, and decision.created only to an endpoint that opted in', async () => {
    const businessId = 'optin';
    const all = await receiver();
    const flags = await receiver();
    const a = await t.engine.webhooks.endpoints.create({ businessId }, { url: all.url, eventTypes: ['decision.created'] });
    const f = await t.engine.webhooks.endpoints.create({ businessId }, { url: flags.url, eventTypes: ['decision.flagged'] });
    await t.engine.decide(tx('CALM-1'), { businessId });
    await t.engine.decide(flagged('FLAG-1'), { businessId });
    await flush();
    expect(verified(all, a.secret).map((e) => [e.type, e.data.reference])).toEqual([
      ['decision.created', 'CALM-1'],
      ['decision.created', 'FLAG-1'],
    ]);
    expect(verified(flags, f.secret).map((e) => [e.type, e.data.reference])).toEqual([['decision.flagged', 'FLAG-1']]);
  });

  it('sends each endpoint only its types, and nothing to another business', async () => {
    const cases = await receiver();
    const decisions = await receiver();
    const other = await receiver();
    const c = await t.engine.webhooks.endpoints.create({ businessId: 'acme' }, { url: cases.url, eventTypes: ['case.created'] });
    const d = await t.engine.webhooks.endpoints.create({ businessId: 'acme' }, { url: decisions.url, eventTypes: ['decision.flagged'] });
    await t.engine.webhooks.endpoints.create(
      { businessId: 'tenantb' },
      { url: other.url, eventTypes: ['decision.created', 'case.created'] },
    );
    await t.engine.decide(flagged('ONLY-1'), { businessId: 'acme' });
    await flush();
    expect(verified(cases, c.secret).map((e) => e.type)).toEqual(['case.created']);
    expect(verified(decisions, d.secret).map((e) => e.type)).toEqual(['decision.flagged']);
    expect(other.received).toEqual([]);
    expect((await t.engine.webhooks.list('tenantb', { page: 1, limit: 10 })).total).toBe(0);
  });

  it('sends an endpoint the events after its creation only, and stops when it is deleted', async () => {
    const businessId = 'later';
    const r = await receiver();
    await t.engine.decide(tx('BEFORE-1'), { businessId });
    const e = await t.engine.webhooks.endpoints.create({ businessId }, { url: r.url, eventTypes: ['decision.created'] });
    await t.engine.decide(tx('AFTER-1'), { businessId });
    await flush();
    expect(verified(r, e.secret).map((x) => x.data.reference)).toEqual(['AFTER-1']);
    await t.engine.webhooks.endpoints.delete({ businessId }, e.id);
    await t.engine.decide(tx('DELETED-1'), { businessId });
    await flush();
    expect(r.received).toHaveLength(1);
  });

  it('forwards each event once when two runs of the subscriber race over one checkpoint', async () => {
    const businessId = 'once';
    const r = await receiver();
    await t.engine.webhooks.endpoints.create({ businessId }, { url: r.url, eventTypes: ['decision.created'] });
    for (let i = 0; i < 30; i++) await t.engine.decide(tx(`ONCE-${i}`), { businessId });
    // Two subscribers racing over the same log: one checkpoint stream decides which page each forwards.
    await Promise.all([t.engine.webhooks.forwardEvents(), t.engine.webhooks.forwardEvents()]);
    await t.engine.webhooks.runDue();
    expect(r.received.map((x) => JSON.parse(x.body).data.reference).sort()).toEqual(
      Array.from({ length: 30 }, (_, i) => `ONCE-${i}`).sort(),
    );
  });

  // Last: it starts the background loops, which the tests above drive by hand.
  it('keeps deciding while a receiver hangs or is down, and delivers once it is back', async () => {
    const businessId = 'down';
    const hanging = await startReceiver(0, { hang: true });
    const e = await t.engine.webhooks.endpoints.create({ businessId }, { url: hanging.url, eventTypes: ['decision.created'] });
    t.engine.webhooks.start(20);
    await t.engine.decide(tx('DOWN-0'), { businessId });
    const statuses = async () => (await t.engine.webhooks.list(businessId, { page: 1, limit: 50 })).deliveries.map((d) => d.status);
    await vi.waitFor(async () => expect(await statuses()).toEqual(['delivering']), { timeout: 30_000, interval: 20 });
    // The worker is held by the receiver that does not answer; decisions go on all the same, and are forwarded.
    for (let i = 1; i < 10; i++) await t.engine.decide(tx(`DOWN-${i}`), { businessId });
    await vi.waitFor(async () => expect(await statuses()).toHaveLength(10), { timeout: 30_000, interval: 20 });
    expect((await statuses()).filter((s) => s === 'delivering')).toEqual(['delivering']);

    // Down: the held attempt fails, and so does every other one, each scheduled again.
    await hanging.close();
    await vi.waitFor(
      async () => {
        const { deliveries } = await t.engine.webhooks.list(businessId, { page: 1, limit: 50 });
        expect(deliveries.filter((d) => d.status === 'pending' && d.attempts === 1 && d.lastError !== null)).toHaveLength(10);
      },
      { timeout: 30_000, interval: 20 },
    );
    const back = await startReceiver(hanging.port);
    receivers.push(back);
    clock.advance(RETRY_DELAYS_MS[0] * 1.2);
    await vi.waitFor(() => expect(back.received).toHaveLength(10), { timeout: 30_000, interval: 20 });
    expect(
      verified(back, e.secret)
        .map((x) => x.data.reference)
        .sort(),
    ).toEqual(Array.from({ length: 10 }, (_, i) => `DOWN-${i}`).sort());
    await vi.waitFor(async () => expect(await statuses()).toEqual(Array(10).fill('delivered')), { timeout: 30_000, interval: 20 });
  }, 120_000);
});
