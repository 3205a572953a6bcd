import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { CasePriority } from '../../src/cases/index.js';
import { testApi, type TestApi } from '../helpers.js';
import { BACKENDS, skipBackend } from '../postgres.js';

// Due times by priority, the overdue filter, the due sort and "next case", on SQLite and on PostgreSQL: the due
// time of a case without one of its own is computed in SQL, in each backend's dialect.
for (const backend of BACKENDS)
  describe.skipIf(skipBackend(backend))(`working the queue (${backend})`, () => {
    let api: TestApi;
    const clock = new ManualClock('2026-03-01T00:00:00.000Z');
    const biz = () => api.tenantA.businessId;
    beforeAll(async () => {
      api = await testApi({ backend, clock });
    });
    afterAll(async () => api.close());

    const open = (title: string, priority: CasePriority, dueDate?: string) =>
      api.engine.cases.create(
        { businessId: biz() },
        { module: 'aml', record: { type: 'customer', id: `c-${title}`, name: title }, title, description: '', priority, dueDate },
      );

    it('dates each case by its priority unless it has a due date, filters the overdue and sorts by due time', async () => {
      const changed = await api.call('PATCH', '/api/v1/case-management/settings', { body: { dueHours: { critical: 4, high: 24 } } });
      expect(changed.body.data.dueHours).toEqual({ critical: 4, high: 24, medium: 168, low: 720 });
      clock.set('2026-03-01T00:00:00.000Z');
      await open('Low', 'low');
      await open('High', 'high');
      await open('Own', 'low', '2026-03-01T06:00:00.000Z');
      const crit = await open('Crit', 'critical');
      clock.set('2026-03-01T12:00:00.000Z');
      const listed = await api.engine.cases.list(biz(), {}, { page: 1, limit: 10 }, 'due');
      expect(listed.cases.map((k) => [k.title, k.dueAt, k.isOverdue])).toEqual([
        ['Crit', '2026-03-01T04:00:00.000Z', true],
        ['Own', '2026-03-01T06:00:00.000Z', true],
        ['High', '2026-03-02T00:00:00.000Z', false],
        ['Low', '2026-03-31T00:00:00.000Z', false],
      ]);
      const { dueHours } = await api.engine.cases.settings(biz());
      const overdue = await api.engine.cases.list(
        biz(),
        { overdue: { now: clock.now().toISOString(), dueHours } },
        { page: 1, limit: 10 },
        'due',
      );
      expect(overdue.cases.map((k) => k.title)).toEqual(['Crit', 'Own']);
      // A resolved case is never overdue.
      await api.engine.cases.update({ businessId: biz() }, crit._id, { status: 'in progress' });
      await api.engine.cases.update({ businessId: biz() }, crit._id, { status: 'resolved' });
      const after = await api.engine.cases.list(biz(), { overdue: { now: clock.now().toISOString(), dueHours } }, { page: 1, limit: 10 });
      expect(after.cases.map((k) => k.title)).toEqual(['Own']);
    });

    it('gives each of several people taking the next case at once a case of their own, most urgent first', async () => {
      const people = await Promise.all(
        ['Ann', 'Bob', 'Cid', 'Dee'].map((firstName) =>
          api.engine.users.create({ businessId: biz() }, { firstName, lastName: 'Q', email: `${firstName}@q.example`, role: 'analyst' }),
        ),
      );
      const taken = await Promise.all(people.map((p) => api.engine.cases.takeNext({ businessId: biz(), userId: p._id })));
      // Three active cases nobody holds (the first test's Crit is resolved): each taken once, the fourth person finds none.
      const titles = await Promise.all(
        taken.filter((id) => id !== undefined).map(async (id) => (await api.engine.cases.get(biz(), id)).title),
      );
      expect(titles.sort()).toEqual(['High', 'Low', 'Own']);
      expect(taken.filter((id) => id === undefined)).toHaveLength(1);
      for (const [i, id] of taken.entries()) if (id) expect((await api.engine.cases.get(biz(), id)).assignedTo?._id).toBe(people[i]!._id);
    });

    it('refuses a time zone or due hours it does not know, naming the field', async () => {
      const zone = await api.call('PATCH', '/api/v1/case-management/settings', { body: { timeZone: 'Mars/Olympus' } });
      expect(zone.status).toBe(400);
      expect(zone.body.message).toContain('timeZone');
      const hours = await api.call('PATCH', '/api/v1/case-management/settings', { body: { dueHours: { high: 0 } } });
      expect(hours.status).toBe(400);
      expect(hours.body.message).toContain('dueHours.high');
    });
  });
