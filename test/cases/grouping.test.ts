import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caseStream, LISTED_LATEST, SYSTEM_ACTOR, type CaseEvent } from '../../src/cases/index.js';
import { ManualClock } from '../../src/clock.js';
import { testApi, type TestApi } from '../helpers.js';
import { tx } from '../monitoring/fixtures.js';

const clock = new ManualClock('2026-06-01T08:00:00.000Z');
let api: TestApi;
beforeAll(async () => {
  api = await testApi({ clock });
});
afterAll(async () => api.close());

/** A decision the bundled rules reject (a banned user moving a large amount): it raises an alert. */
const flagged = (reference: string, uniqueId: string) =>
  tx(reference, { transactionData: { amount: 4_800_000 }, anonymizedUserData: { uniqueId, isBanned: true } });

async function decide(body: Record<string, unknown>, key = api.tenantA) {
  const res = await api.call('POST', '/api/v1/transaction-monitoring/instant', { body, key });
  expect(res.status).toBe(200);
  expect(res.body.data.action.result).not.toBe('approved');
  const stored = await api.engine.monitoring.getTransaction(key.businessId, res.body.data.transactionId);
  return { transactionId: res.body.data.transactionId as string, caseId: stored.caseId! };
}

describe('alerts grouped into cases', () => {
  it("puts a burst of one user's alerts into one case, and another user's into their own", async () => {
    const burst = Array.from({ length: 12 }, (_, i) => flagged(`BURST-${i}`, 'u-burst'));
    const other = Array.from({ length: 4 }, (_, i) => flagged(`OTHER-${i}`, 'u-other'));
    const decided = await Promise.all([...burst, ...other].map((body) => decide(body)));
    const burstCases = new Set(decided.slice(0, 12).map((d) => d.caseId));
    const otherCases = new Set(decided.slice(12).map((d) => d.caseId));
    expect(burstCases.size).toBe(1);
    expect(otherCases.size).toBe(1);
    const [burstCase] = [...burstCases];
    expect(otherCases.has(burstCase!)).toBe(false);

    const kase = await api.engine.cases.get(api.tenantA.businessId, burstCase!);
    expect(kase).toMatchObject({
      module: 'transaction-monitoring',
      subject: 'user:u-burst',
      record: { type: 'user', id: 'u-burst' },
      priority: 'critical',
      status: 'open',
      counts: { alerts: 12 },
    });
    // Listed in the order they joined, which is the order of their events on the case's stream.
    const stream = await api.engine.store.readStream(caseStream(api.tenantA.businessId, burstCase!));
    const added = stream
      .filter((e) => e.type === 'CaseAlertAdded')
      .map((e) => (e.data as Extract<CaseEvent, { type: 'CaseAlertAdded' }>['data']).alert);
    expect(kase.alerts.map((a) => a.transactionId)).toEqual(added.map((a) => a.transactionId));
    expect(new Set(kase.alerts.map((a) => a.transactionId))).toEqual(new Set(decided.slice(0, 12).map((d) => d.transactionId)));
    expect(kase.alerts[0]).toMatchObject({
      action: 'rejected',
      priority: 'critical',
      rules: expect.any(Array),
      reason: expect.any(String),
    });
    expect(kase.log.filter((l) => l.message.startsWith('Alert: transaction BURST-'))).toHaveLength(12);
    expect(stream[0]?.type).toBe('CaseOpened');
    expect(stream[1]?.data).toMatchObject({ by: SYSTEM_ACTOR });
  });

  it("reads the subject's case again once a write made from what it knew fails, instead of expecting the versions reserved after it", async () => {
    const { businessId } = api.tenantA;
    const { caseId } = await decide(flagged('HOLE-OPEN', 'u-hole'));
    const alertOn = (reference: string) =>
      api.engine.cases.alertWrites({
        businessId,
        subjects: { user: { id: 'u-hole', name: 'u-hole' }, transaction: { id: `t-${reference}`, name: reference } },
        alert: {
          transactionId: `t-${reference}`,
          reference,
          action: 'rejected',
          score: '100',
          priority: 'critical',
          rules: [],
          decidedAt: clock.now().toISOString(),
          reason: 'test',
        },
        description: 'test',
        fresh: true,
      });
    // Two alerts reserve the case's next two versions; the first append fails (the control fence, say), so neither is written.
    const lost = await alertOn('HOLE-LOST');
    await alertOn('HOLE-AFTER-LOST');
    expect(lost).toMatchObject({ caseId, reused: true });
    lost.failed();
    const next = await alertOn('HOLE-NEXT');
    await expect(api.engine.store.appendMany(next.writes, { businessId, actor: 'api' })).resolves.toHaveLength(1);
    expect((await api.engine.cases.get(businessId, caseId)).alerts.map((a) => a.reference)).toEqual(['HOLE-OPEN', 'HOLE-NEXT']);
  });

  it('groups by account when the business says so, and opens a fresh case after the configured time or once closed', async () => {
    const key = api.tenantB;
    const changed = await api.call('PATCH', '/api/v1/case-management/settings', {
      key,
      body: { groupBy: 'account', freshCaseAfterHours: 1 },
    });
    expect(changed.body.data).toEqual({
      fourEyes: false,
      groupBy: 'account',
      freshCaseAfterHours: 1,
      timeZone: 'UTC',
      dueHours: { critical: 24, high: 72, medium: 168, low: 720 },
    });
    // Two users paying from one account (the fixture's sender account) share its case.
    const first = await decide(flagged('ACC-1', 'u-one'), key);
    const second = await decide(flagged('ACC-2', 'u-two'), key);
    expect(second.caseId).toBe(first.caseId);
    expect((await api.engine.cases.get(key.businessId, first.caseId)).subject).toBe('account:0123456789');

    clock.advance(2 * 3_600_000);
    const later = await decide(flagged('ACC-3', 'u-one'), key);
    expect(later.caseId).not.toBe(first.caseId);

    // Closed by an investigator, which this process's memory of the subject does not see: the append that trusted
    // it fails on the case stream's version, and the retry reads the case and opens a fresh one.
    const closed = await api.call('PATCH', `/api/v1/case-management/case/${later.caseId}`, {
      key,
      body: { status: 'closed', disposition: 'false positive' },
    });
    expect(closed.status).toBe(200);
    const afterClose = await decide(flagged('ACC-4', 'u-two'), key);
    expect(afterClose.caseId).not.toBe(later.caseId);
    expect((await api.engine.cases.get(key.businessId, afterClose.caseId)).counts.alerts).toBe(1);

    const bad = await api.call('PATCH', '/api/v1/case-management/settings', { key, body: { groupBy: 'device' } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/groupBy/);
  });
});

describe('bulk actions and the listing', () => {
  it('closes 500 cases in one call, reporting the one illegal transition and closing the rest', async () => {
    const businessId = api.tenantA.businessId;
    const created = await Promise.all(
      Array.from({ length: 500 }, (_, i) =>
        api.engine.cases.create(
          { businessId },
          {
            module: 'aml',
            record: { id: `bulk-${i}`, type: 'customer', name: `Bulk ${i}` },
            title: 'hit',
            description: '',
            priority: 'low',
          },
        ),
      ),
    );
    const ids = created.map((c) => c._id);
    await api.engine.cases.update({ businessId }, ids[7]!, { status: 'in progress' });

    const res = await api.call('POST', '/api/v1/case-management/bulk', {
      body: { caseIds: ids, action: { type: 'close', disposition: 'false positive', note: 'Known employer payroll.' } },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ succeeded: 499, failed: 1 });
    expect(res.body.data.results.filter((r: { ok: boolean }) => !r.ok)).toEqual([
      { caseId: ids[7], ok: false, error: 'conflict', message: 'Case status cannot change from in progress to closed' },
    ]);
    const one = await api.engine.cases.get(businessId, ids[0]!);
    expect(one).toMatchObject({ status: 'closed', disposition: 'false positive' });
    expect(one.comments.map((c) => c.text)).toEqual(['Known employer payroll.']);
    expect((await api.engine.cases.get(businessId, ids[7]!)).status).toBe('in progress');
    const listed = await api.call('GET', '/api/v1/case-management/listing?disposition=false%20positive&limit=1');
    expect(listed.body.data.total).toBe(499);

    const tooMany = await api.call('POST', '/api/v1/case-management/bulk', {
      body: { caseIds: [...ids, 'one-more'], action: { type: 'status', status: 'in progress' } },
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.message).toMatch(/caseIds/);
    const tooWide = await api.call('POST', '/api/v1/case-management/bulk', {
      body: { filters: {}, action: { type: 'status', status: 'in progress' } },
    });
    expect(tooWide.status).toBe(400);
    expect(tooWide.body.message).toMatch(/filters selects more than 500 cases/);
  });

  it('keeps a listed case small with 2,000 comments: counts and the latest entries; the case itself has them all', async () => {
    const businessId = api.tenantA.businessId;
    const kase = await api.engine.cases.create(
      { businessId },
      {
        module: 'kyc',
        record: { id: 'chatty', type: 'customer', name: 'Chatty' },
        title: 'talked about',
        description: '',
        priority: 'medium',
      },
    );
    // The events the comment endpoint makes, appended in bulk so the test does not wait on 2,000 commits.
    const comments: CaseEvent[] = Array.from({ length: 2000 }, (_, i) => ({
      type: 'CaseCommentAdded',
      data: {
        caseId: kase._id,
        by: SYSTEM_ACTOR,
        commentId: `c${i}`,
        text: `comment ${i} ${'x'.repeat(200)}`,
        attachments: [],
        taggedUsers: [],
      },
    }));
    for (let i = 0; i < comments.length; i += 500) {
      await api.engine.store.append(caseStream(businessId, kase._id), comments.slice(i, i + 500), {
        expectedVersion: 'any',
        metadata: { businessId },
      });
    }
    const res = await api.call('GET', '/api/v1/case-management/listing?subject=customer:chatty');
    expect(res.body.data.total).toBe(1);
    const [listed] = res.body.data.cases;
    expect(listed.counts).toMatchObject({ comments: 2000, log: 2001 });
    expect(listed.comments.map((c: { _id: string }) => c._id)).toEqual(['c1997', 'c1998', 'c1999']);
    expect(listed.log).toHaveLength(LISTED_LATEST);
    expect(JSON.stringify(res.body).length).toBeLessThan(20_000);
    const full = await api.call('GET', `/api/v1/case-management/case/${kase._id}`);
    expect(full.body.data.comments).toHaveLength(2000);

    const filtered = await api.call('GET', '/api/v1/case-management/listing?minAlerts=12&openedAfter=2026-06-01T00:00:00.000Z');
    expect(filtered.body.data.cases.map((c: { subject: string }) => c.subject)).toEqual(['user:u-burst']);
  });
});
