import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { testApi, type TestApi } from '../helpers.js';
import { individual } from './fixtures.js';

const DAY = 86_400_000;
const clock = new ManualClock('2026-03-01T00:00:00.000Z');
let api: TestApi;
beforeAll(async () => {
  api = await testApi({ clock });
  await api.call('POST', '/api/v1/cdd/customers', { body: individual('mon-1') });
});
afterAll(() => api.close());

describe('ongoing monitoring', () => {
  it('schedules a monitored workflow and fires it when due, once per due time', async () => {
    await api.call('POST', '/api/v1/cdd/process', { body: { customerUniqueId: 'mon-1', workflowSlug: 'individual-standard' } });
    await api.engine.cdd.runPending();
    const schedules = await api.call('GET', '/api/v1/cdd/requests/schedules');
    expect(schedules.body).toMatchObject({ count: 1, pageNumber: 1, totalCount: 1 });
    expect(schedules.body.data[0]).toMatchObject({
      type: 'individual',
      status: 'in progress',
      workflowName: 'Individual standard due diligence',
      nextRunAt: '2026-05-30T00:00:00.000Z',
      createdAt: '2026-03-01T00:00:00.000Z',
    });
    expect(schedules.body.data[0].executionId).toMatch(/^[0-9a-f]{24}$/);
    // Until it first fires, the schedule's last request is the one that created it.
    const [created] = (await api.call('GET', '/api/v1/cdd-request/customers/mon-1')).body.data;
    expect(schedules.body.data[0].lastRequestId).toBe(created._id);

    // A second run of the same workflow does not schedule it twice.
    await api.call('POST', '/api/v1/cdd/process', { body: { customerUniqueId: 'mon-1', workflowSlug: 'individual-standard' } });
    expect((await api.call('GET', '/api/v1/cdd/requests/schedules')).body.totalCount).toBe(1);
    await api.engine.cdd.runPending();

    clock.advance(89 * DAY);
    expect(await api.engine.cdd.runDue()).toEqual([]);
    clock.advance(DAY);
    const fired = await api.engine.cdd.runDue();
    expect(fired).toHaveLength(1);
    expect(await api.engine.cdd.runDue()).toEqual([]);
    const requests = (await api.call('GET', '/api/v1/cdd-request/customers/mon-1')).body;
    expect(requests.count).toBe(3);
    expect(requests.data[0]).toMatchObject({ _id: fired[0], status: 'completed' });
    const after = (await api.call('GET', '/api/v1/cdd/requests/schedules')).body.data[0];
    expect(after).toMatchObject({ lastRequestId: fired[0], nextRunAt: '2026-08-28T00:00:00.000Z' });
    expect((await api.call('GET', '/api/v1/cdd/requests/schedules', { key: api.tenantB })).body.totalCount).toBe(0);
  });
});
