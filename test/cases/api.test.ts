import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { IssuedKey } from '../../src/auth/index.js';
import { ManualClock } from '../../src/clock.js';
import type { User } from '../../src/users/index.js';
import { testApi, type TestApi } from '../helpers.js';
import { uploadFile } from '../uploads/helpers.js';

const BASE = '/api/v1/case-management';
const newCase = (over: Record<string, unknown> = {}) => ({
  module: 'transaction-monitoring',
  record: { id: 'tx-100', type: 'transaction', name: 'Transfer 100' },
  title: 'Large transfer',
  description: 'Over the daily limit',
  priority: 'high',
  ...over,
});

// One engine for the file: each test is a business of its own (and a second one, to check that neither sees the
// other), so no test sees another's cases. The clock only moves forward, as the log's does.
describe('case management API', () => {
  let t: TestApi;
  let clock: ManualClock;
  let tenantA: IssuedKey;
  let tenantB: IssuedKey;
  let ada: User;
  beforeAll(async () => {
    clock = new ManualClock('2026-03-01T10:00:00.000Z');
    t = await testApi({ clock });
  });
  afterAll(async () => t?.close());
  beforeEach(async () => {
    tenantA = await t.engine.auth.issue({ name: 'tenant-a' });
    tenantB = await t.engine.auth.issue({ name: 'tenant-b' });
    ada = await t.engine.users.create(
      { businessId: tenantA.businessId },
      { firstName: 'Ada', lastName: 'Obi', email: 'ada@x.example', role: 'investigator' },
    );
  });
  /** A request as tenant A unless `key` says otherwise. */
  const call: TestApi['call'] = (method, path, options = {}) =>
    t.call(method, path, { ...options, key: options.key === undefined ? tenantA : options.key });

  const create = async (over: Record<string, unknown> = {}) => {
    const res = await call('POST', `${BASE}/case`, { body: newCase(over) });
    expect(res.status).toBe(201);
    return res.body.data;
  };

  it('creates a case and reads it in the exact interface shape', async () => {
    const created = await create({ assignedTo: ada._id, dueDate: '2026-03-05T00:00:00Z', tasks: ['Call the customer', 'Check KYC'] });
    const res = await call('GET', `${BASE}/case/${created._id}`);
    expect(res.status).toBe(200);
    expect(res.body.message).toBeTypeOf('string');
    const data = res.body.data;
    expect(Object.keys(data).sort()).toEqual(
      [
        '_id',
        'businessProfile',
        'module',
        'record',
        'title',
        'description',
        'priority',
        'status',
        'assignedTo',
        'assignedBy',
        'dueDate',
        'tasks',
        'comments',
        'attachments',
        'isEscalated',
        'log',
        'createdAt',
        'updatedAt',
        // Added to the interface's shape: alert grouping, the disposition, and the lists' sizes.
        'subject',
        'disposition',
        'alerts',
        'counts',
      ].sort(),
    );
    const apiKeyActor = { _id: `apikey:${tenantA.apiKey}`, firstName: 'API key', lastName: 'tenant-a' };
    expect(data).toMatchObject({
      businessProfile: tenantA.businessId,
      module: 'transaction-monitoring',
      record: { id: 'tx-100', type: 'transaction', name: 'Transfer 100' },
      status: 'open',
      assignedTo: { _id: ada._id, firstName: 'Ada', lastName: 'Obi' },
      assignedBy: apiKeyActor,
      dueDate: '2026-03-05T00:00:00.000Z',
      isEscalated: false,
      comments: [],
      attachments: [],
      createdAt: '2026-03-01T10:00:00.000Z',
    });
    expect(data.tasks.map((x: any) => [x.text, x.status])).toEqual([
      ['Call the customer', false],
      ['Check KYC', false],
    ]);
    expect(data.log).toEqual([
      { _id: expect.any(String), status: 'open', message: 'Case created', user: apiKeyActor, date: '2026-03-01T10:00:00.000Z' },
    ]);
  });

  it('answers errors with {message}: unknown case 404, bad credentials 401, invalid body 400 naming the field', async () => {
    expect(await call('GET', `${BASE}/case/000000000000000000000000`)).toMatchObject({
      status: 404,
      body: { message: 'Case not found' },
    });
    expect(await call('GET', `${BASE}/case/x`, { key: null })).toMatchObject({
      status: 401,
      body: { message: 'Invalid API credentials' },
    });
    expect(await call('POST', `${BASE}/case`, { body: newCase({ title: undefined }) })).toEqual(
      expect.objectContaining({ status: 400, body: { message: 'title is required' } }),
    );
    expect((await call('POST', `${BASE}/case`, { body: newCase({ priority: 'urgent' }) })).body).toEqual({
      message: 'priority must be one of: low, medium, high, critical',
    });
    expect((await call('POST', `${BASE}/case`, { body: newCase({ module: 'x' }) })).body.message).toMatch(
      /^module must be one of: transaction-monitoring, aml, cdd, kyc, reporting/,
    );
    expect((await call('POST', `${BASE}/case`, { body: newCase({ dueDate: 'tomorrow' }) })).body).toEqual({
      message: 'dueDate must be an ISO 8601 timestamp',
    });
    expect(await call('POST', `${BASE}/case`, { body: newCase({ assignedTo: 'nobody' }) })).toMatchObject({
      status: 400,
      body: { message: 'assignedTo must be the id of a user of this business' },
    });
    expect((await call('POST', `${BASE}/case`, { body: newCase({ record: { id: 'a', type: 'transaction' } }) })).body).toEqual({
      message: 'record.name is required',
    });
    const c = await create();
    expect(await call('PATCH', `${BASE}/case/${c._id}`, { body: {} })).toMatchObject({
      status: 400,
      body: { message: expect.stringMatching(/at least one of status/) },
    });
    expect(await call('PATCH', `${BASE}/case/${c._id}`, { body: { state: 'closed' } })).toMatchObject({
      status: 400,
      body: { message: 'body has unknown field(s): state' },
    });
    // Closing takes a disposition (and goes through the approvals policy, test/approvals); the bulk status action does not close.
    for (const body of [{ status: 'closed' }, { status: 'resolved', disposition: 'false positive' }]) {
      expect(await call('PATCH', `${BASE}/case/${c._id}`, { body })).toMatchObject({
        status: 400,
        body: { message: 'disposition: a disposition is given exactly when status is closed' },
      });
    }
    expect(await call('POST', `${BASE}/bulk`, { body: { caseIds: [c._id], action: { type: 'status', status: 'closed' } } })).toMatchObject({
      status: 400,
      body: { message: expect.stringMatching(/^action.status/) },
    });
    expect(await call('POST', `${BASE}/case/${c._id}/tasks`, { body: { text: '' } })).toMatchObject({
      status: 400,
      body: { message: 'text must not be empty' },
    });
    expect(await call('PATCH', `${BASE}/case/${c._id}/tasks/nope`, { body: { status: true } })).toMatchObject({
      status: 404,
      body: { message: 'Task not found' },
    });
    expect(await call('PATCH', `${BASE}/case/${c._id}/tasks/constructor`, { body: { status: true } })).toMatchObject({ status: 404 });
    expect(await call('POST', `${BASE}/case/nope/comments`, { body: { text: 'hi' } })).toMatchObject({
      status: 404,
      body: { message: 'Case not found' },
    });
  });

  it('refuses a second case for a record with an active one, naming it', async () => {
    const c = await create();
    expect(await call('POST', `${BASE}/case`, { body: newCase() })).toMatchObject({
      status: 409,
      body: { message: expect.stringContaining(c._id) },
    });
  });

  it('opens one case for concurrent creations for one record, and names it to the others', async () => {
    const record = { id: 'tx-race', type: 'transaction', name: 'Race' };
    const answers = await Promise.all(Array.from({ length: 4 }, () => call('POST', `${BASE}/case`, { body: newCase({ record }) })));
    const created = answers.filter((a) => a.status === 201);
    expect(created).toHaveLength(1);
    const message = `Record transaction tx-race already has an active case ${created[0]!.body.data._id}`;
    for (const a of answers.filter((a) => a.status !== 201)) expect(a).toMatchObject({ status: 409, body: { message } });
  });

  it('refuses unknown fields in every case body, naming them, and answers a route or body it cannot take with {message}', async () => {
    expect(await call('POST', `${BASE}/case`, { body: newCase({ status: 'closed' }) })).toMatchObject({
      status: 400,
      body: { message: 'body has unknown field(s): status' },
    });
    expect(await call('POST', `${BASE}/case`, { body: newCase({ record: { id: 'a', type: 'b', name: 'c', extra: 1 } }) })).toMatchObject({
      status: 400,
      body: { message: 'record has unknown field(s): extra' },
    });
    const c = await create();
    for (const [path, body] of [
      ['comments', { text: 'a', foo: 1 }],
      ['tasks', { text: 'a', status: true }],
      ['attachments', { key: 'k', x: 1 }],
    ] as const) {
      expect(await call('POST', `${BASE}/case/${c._id}/${path}`, { body })).toMatchObject({
        status: 400,
        body: { message: expect.stringMatching(/^body has unknown field\(s\): (foo|status|x)$/) },
      });
    }
    expect(await call('GET', `${BASE}/nowhere`)).toEqual(
      expect.objectContaining({ status: 404, body: { message: `Route not found: GET ${BASE}/nowhere` } }),
    );
    const huge = { text: 'x'.repeat(1024 * 1024) };
    expect(await call('POST', `${BASE}/case/${c._id}/tasks`, { body: huge })).toEqual(
      expect.objectContaining({ status: 413, body: { message: 'request body is larger than 1048576 bytes' } }),
    );
    expect(await call('GET', '/api/v1/nowhere')).toEqual(
      expect.objectContaining({ status: 404, body: { error: 404, message: 'Route not found: GET /api/v1/nowhere' } }),
    );
  });

  it('hides every case of another business as if missing (404), for reads and writes', async () => {
    const c = await create();
    const asB = { key: tenantB };
    expect(await call('GET', `${BASE}/case/${c._id}`, asB)).toMatchObject({ status: 404, body: { message: 'Case not found' } });
    expect(await call('PATCH', `${BASE}/case/${c._id}`, { ...asB, body: { status: 'in progress' } })).toMatchObject({ status: 404 });
    expect(await call('POST', `${BASE}/case/${c._id}/comments`, { ...asB, body: { text: 'x' } })).toMatchObject({ status: 404 });
    expect(await call('POST', `${BASE}/case/${c._id}/tasks`, { ...asB, body: { text: 'x' } })).toMatchObject({ status: 404 });
    expect(await call('PATCH', `${BASE}/case/${c._id}/tasks/${'0'.repeat(24)}`, { ...asB, body: { status: true } })).toMatchObject({
      status: 404,
    });
    expect((await call('GET', `${BASE}/listing`, asB)).body.data).toMatchObject({ cases: [], total: 0 });
    expect((await call('GET', `${BASE}/case/${c._id}`)).body.data.log).toHaveLength(1);
  });

  it('answers an illegal transition with 409 naming both states and changes nothing', async () => {
    const c = await create();
    const res = await call('PATCH', `${BASE}/case/${c._id}`, { body: { status: 'resolved', priority: 'low' } });
    expect(res).toMatchObject({ status: 409, body: { message: 'Case status cannot change from open to resolved' } });
    const after = (await call('GET', `${BASE}/case/${c._id}`)).body.data;
    expect(after).toMatchObject({ status: 'open', priority: 'high' });
    expect(after.log).toHaveLength(1);
    // Closing from a status that cannot close changes nothing either, the body's other fields included.
    await call('PATCH', `${BASE}/case/${c._id}`, { body: { status: 'in progress' } });
    const closing = await call('PATCH', `${BASE}/case/${c._id}`, {
      body: { status: 'closed', disposition: 'false positive', priority: 'low' },
    });
    expect(closing).toMatchObject({ status: 409, body: { message: 'Case status cannot change from in progress to closed' } });
    expect((await call('GET', `${BASE}/case/${c._id}`)).body.data).toMatchObject({ status: 'in progress', priority: 'high' });
  });

  it('logs each field change of a PATCH as its own entry, status last; a no-op changes nothing', async () => {
    const c = await create();
    const res = await call('PATCH', `${BASE}/case/${c._id}`, {
      body: { status: 'in progress', priority: 'critical', assignedTo: ada._id, dueDate: '2026-03-02T00:00:00.000Z', isEscalated: true },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.log.map((l: any) => [l.status, l.message])).toEqual([
      ['open', 'Case created'],
      ['open', 'Priority changed from high to critical'],
      ['open', 'Assigned to Ada Obi'],
      ['open', 'Due date set to 2026-03-02T00:00:00.000Z'],
      ['open', 'Case escalated'],
      ['in progress', 'Status changed from open to in progress'],
    ]);
    const same = await call('PATCH', `${BASE}/case/${c._id}`, { body: { status: 'in progress', isEscalated: true } });
    expect(same.body.data.log).toHaveLength(6);
    const cleared = await call('PATCH', `${BASE}/case/${c._id}`, { body: { dueDate: null, isEscalated: false } });
    expect(cleared.body.data).toMatchObject({ dueDate: null, isEscalated: false });
  });

  it('lists with filters and paging, flagging overdue active cases by the clock at read time', async () => {
    const a = await create({ dueDate: '2026-03-02T00:00:00.000Z', assignedTo: ada._id });
    const b = await create({
      record: { id: 'cust-1', type: 'customer', name: 'Bola' },
      module: 'cdd',
      priority: 'low',
      dueDate: '2026-03-02T00:00:00.000Z',
    });
    await call('PATCH', `${BASE}/case/${b._id}`, { body: { status: 'closed', disposition: 'false positive' } });
    const list = async (q = '') => (await call('GET', `${BASE}/listing${q}`)).body.data;
    expect(await list()).toMatchObject({ total: 2, page: 1, limit: 20 });
    expect((await list()).cases.map((c: any) => [c._id, c.isOverdue])).toEqual([
      [b._id, false],
      [a._id, false],
    ]);
    clock.set('2026-03-03T00:00:00.000Z');
    expect((await list()).cases.map((c: any) => [c._id, c.isOverdue])).toEqual([
      [b._id, false],
      [a._id, true],
    ]);
    expect((await list('?status=closed')).cases.map((c: any) => c._id)).toEqual([b._id]);
    expect((await list('?module=cdd&priority=low')).total).toBe(1);
    expect((await list(`?assignedTo=${ada._id}`)).cases.map((c: any) => c._id)).toEqual([a._id]);
    expect((await list('?recordId=tx-100')).cases.map((c: any) => c._id)).toEqual([a._id]);
    expect(await list('?page=2&limit=1')).toMatchObject({ total: 2, page: 2, limit: 1, cases: [{ _id: a._id }] });
    expect(await call('GET', `${BASE}/listing?status=done`)).toMatchObject({
      status: 400,
      body: { message: expect.stringMatching(/^status must be one of/) },
    });
    expect(await call('GET', `${BASE}/listing?limit=1000`)).toMatchObject({
      status: 400,
      body: { message: 'limit must be at most 100' },
    });
  });

  it('refuses attachments that were never uploaded, or uploaded by another business', async () => {
    const c = await create();
    const theirs = await uploadFile(t, 'theirs', 'txt', tenantB);
    const pending = (await call('GET', '/api/v1/upload?fileType=pdf&access=private')).body.data.key;
    for (const key of ['000000000000000000000000.txt', theirs, pending]) {
      expect(await call('POST', `${BASE}/case/${c._id}/attachments`, { body: { key } })).toMatchObject({
        status: 400,
        body: { message: `key: upload ${key} was never uploaded` },
      });
      expect(await call('POST', `${BASE}/case/${c._id}/comments`, { body: { text: 'see file', attachments: [key] } })).toMatchObject({
        status: 400,
        body: { message: `attachments[0]: upload ${key} was never uploaded` },
      });
    }
    expect(await call('POST', `${BASE}/case/${c._id}/comments`, { body: { text: 'hi', taggedUsers: ['ghost'] } })).toMatchObject({
      status: 400,
      body: { message: 'taggedUsers[0] must be the id of a user of this business' },
    });
    expect((await call('GET', `${BASE}/case/${c._id}`)).body.data.log).toHaveLength(1);
  });

  it('freezes a closed case: further changes are 409, a no-op is not an error', async () => {
    const c = await create();
    await call('PATCH', `${BASE}/case/${c._id}`, { body: { status: 'closed', disposition: 'false positive' } });
    expect(await call('POST', `${BASE}/case/${c._id}/comments`, { body: { text: 'late' } })).toMatchObject({
      status: 409,
      body: { message: 'Case is closed' },
    });
    expect(await call('POST', `${BASE}/case/${c._id}/tasks`, { body: { text: 'late' } })).toMatchObject({ status: 409 });
    expect(await call('PATCH', `${BASE}/case/${c._id}`, { body: { status: 'in progress' } })).toMatchObject({
      status: 409,
      body: { message: 'Case status cannot change from closed to in progress' },
    });
    expect(await call('PATCH', `${BASE}/case/${c._id}`, { body: { status: 'closed', disposition: 'false positive' } })).toMatchObject({
      status: 200,
    });
    const bulk = await call('POST', `${BASE}/bulk`, {
      body: { caseIds: [c._id], action: { type: 'close', disposition: 'false positive' } },
    });
    expect(bulk.body.data.results).toEqual([{ caseId: c._id, ok: false, error: 'conflict', message: 'Case is closed' }]);
  });
});
