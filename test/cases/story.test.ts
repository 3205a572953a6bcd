import { afterEach, beforeEach, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { verifyReplay } from '../../src/projections/index.js';
import { testApi, type TestApi } from '../helpers.js';
import { uploadFile } from '../uploads/helpers.js';

const BASE = '/api/v1/case-management';
let t: TestApi;
let clock: ManualClock;
beforeEach(async () => {
  clock = new ManualClock('2026-03-01T09:00:00.000Z');
  t = await testApi({ clock });
});
afterEach(async () => t.close());

it('an investigator takes a flagged transaction from open to closed, and the whole story is in the log', async () => {
  const biz = t.tenantA.businessId;
  const investigator = await t.engine.users.create(
    { businessId: biz },
    { firstName: 'Chidi', lastName: 'Eze', email: 'chidi@x.example', role: 'investigator' },
  );
  const reviewer = await t.engine.users.create(
    { businessId: biz },
    { firstName: 'Ngozi', lastName: 'Ade', email: 'ngozi@x.example', role: 'reviewer' },
  );
  await t.engine.auth.bindUser(t.tenantA.apiKey, investigator._id, biz);
  const me = { _id: investigator._id, firstName: 'Chidi', lastName: 'Eze' };

  const flagged = await t.engine.cases.open({
    businessId: biz,
    module: 'transaction-monitoring',
    record: { id: 'tx-42', type: 'transaction', name: 'NGN 9,000,000 to ACME' },
    title: 'Transaction flagged for review',
    description: 'velocity: 5 transfers in 10 minutes',
    priority: 'high',
  });
  const path = `${BASE}/case/${flagged._id}`;
  const step = async (method: string, url: string, body: unknown) => {
    clock.advance(60_000);
    const res = await t.call(method, url, { body });
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    return res.body.data;
  };

  await step('PATCH', path, { assignedTo: investigator._id, status: 'in progress' });
  const withTask = await step('POST', `${path}/tasks`, { text: 'Request source of funds' });
  const taskId = withTask.tasks[0]._id;
  const key = await uploadFile(t, 'source of funds letter', 'pdf');
  await step('POST', `${path}/comments`, { text: 'Customer sent a letter, see attached', attachments: [key], taggedUsers: [reviewer._id] });
  await step('POST', `${path}/attachments`, { key });
  await step('PATCH', `${path}/tasks/${taskId}`, { status: true });
  await step('PATCH', path, { status: 'pending review' });
  await step('PATCH', path, { status: 'resolved' });
  const closed = await step('PATCH', path, { status: 'closed', disposition: 'no further action' });

  const read = (await t.call('GET', path)).body.data;
  expect(read).toEqual(closed);
  expect(read).toMatchObject({
    status: 'closed',
    assignedTo: me,
    assignedBy: me,
    tasks: [{ _id: taskId, text: 'Request source of funds', status: true }],
  });
  expect(read.comments).toEqual([
    {
      _id: expect.any(String),
      text: 'Customer sent a letter, see attached',
      user: me,
      attachments: [{ key, contentType: 'application/pdf', size: 22, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }],
      taggedUsers: [{ _id: reviewer._id, firstName: 'Ngozi', lastName: 'Ade' }],
      date: '2026-03-01T09:03:00.000Z',
    },
  ]);
  expect(read.attachments).toMatchObject([{ key, user: me, contentType: 'application/pdf' }]);
  const system = { _id: 'system', firstName: 'System', lastName: '' };
  expect(read.log.map((l: any) => [l.status, l.message, l.user._id, l.date])).toEqual([
    ['open', 'Case created', system._id, '2026-03-01T09:00:00.000Z'],
    ['open', 'Assigned to Chidi Eze', me._id, '2026-03-01T09:01:00.000Z'],
    ['in progress', 'Status changed from open to in progress', me._id, '2026-03-01T09:01:00.000Z'],
    ['in progress', 'Task added: Request source of funds', me._id, '2026-03-01T09:02:00.000Z'],
    ['in progress', 'Comment added with 1 attachment(s)', me._id, '2026-03-01T09:03:00.000Z'],
    ['in progress', `File attached: ${key}`, me._id, '2026-03-01T09:04:00.000Z'],
    ['in progress', 'Task completed: Request source of funds', me._id, '2026-03-01T09:05:00.000Z'],
    ['pending review', 'Status changed from in progress to pending review', me._id, '2026-03-01T09:06:00.000Z'],
    ['resolved', 'Status changed from pending review to resolved', me._id, '2026-03-01T09:07:00.000Z'],
    ['resolved', 'Disposition: no further action, by Chidi Eze', me._id, '2026-03-01T09:08:00.000Z'],
    ['closed', 'Status changed from resolved to closed', me._id, '2026-03-01T09:08:00.000Z'],
  ]);
  expect(new Set(read.log.map((l: any) => l._id)).size).toBe(read.log.length);

  const report = await verifyReplay(t.engine.db, t.engine.store, t.engine.projections);
  expect(report.diffs).toEqual([]);
  expect(report.ok).toBe(true);
});
