import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvalDecider } from '../../src/approvals/decider.js';
import type { Party } from '../../src/approvals/index.js';
import { ConflictError, ForbiddenError, ValidationError } from '../../src/errors.js';
import { fold } from '../../src/store/decider.js';
import { type TestApi, testApi } from '../helpers.js';

const ann: Party = { kind: 'user', id: 'u-ann', name: 'Ann Analyst' };
const ada: Party = { kind: 'user', id: 'u-ada', name: 'Ada Admin' };
const key: Party = { kind: 'api-key', id: 'apikey:k1', name: 'API key switch' };
const requested = fold(approvalDecider, [
  {
    type: 'ApprovalRequested',
    data: {
      requestId: 'r1',
      action: 'list.add',
      subject: { kind: 'list', id: 'accounts' },
      summary: 's',
      payload: {},
      maker: ann,
      reason: '',
    },
  },
]);
const decide = (checker: Party, approve: boolean, reason = '') =>
  approvalDecider.decide({ type: 'Decide', data: { requestId: 'r1', checker, approve, reason } }, requested);

describe('the approval decider', () => {
  it('lets someone other than the maker approve or reject, once', () => {
    expect(decide(ada, true).map((e) => e.type)).toEqual(['ApprovalGranted']);
    expect(decide(ada, false, 'not ours').map((e) => e.type)).toEqual(['ApprovalRejected']);
    const approved = approvalDecider.evolve(requested, decide(ada, true)[0]!);
    expect(() =>
      approvalDecider.decide({ type: 'Decide', data: { requestId: 'r1', checker: ada, approve: false, reason: 'x' } }, approved),
    ).toThrow(ConflictError);
  });

  it('refuses the maker, an API key as checker, and a rejection without a reason', () => {
    expect(() => decide(ann, true)).toThrow(ForbiddenError);
    expect(() => decide(ann, false, 'changed my mind')).toThrow(ForbiddenError);
    expect(() => decide(key, true)).toThrow(ForbiddenError);
    expect(() => decide(ada, false, '  ')).toThrow(ValidationError);
  });
});

describe('maker-checker through the API', () => {
  let api: TestApi;
  let annId: string;
  let adaId: string;
  beforeAll(async () => {
    api = await testApi();
    const { engine, tenantA } = api;
    const businessId = tenantA.businessId;
    annId = (await engine.users.create({ businessId }, { firstName: 'Ann', lastName: 'A', email: 'ann@a.example', role: 'analyst' }))._id;
    adaId = (await engine.users.create({ businessId }, { firstName: 'Ada', lastName: 'B', email: 'ada@a.example', role: 'admin' }))._id;
  });
  afterAll(async () => api?.close());

  const person = (id: string, name: string): Party => ({ kind: 'user', id, name });

  it('changes the policy only with a second person', async () => {
    const { engine, tenantA } = api;
    const businessId = tenantA.businessId;
    expect(await engine.approvals.policy(businessId)).toEqual(['policy.change']);
    const request = await engine.approvals.request(businessId, person(annId, 'Ann A'), {
      action: 'policy.change',
      subject: { kind: 'policy', id: 'four-eyes' },
      summary: 'Four eyes on lists and closing',
      payload: { actions: ['list.add', 'list.remove', 'case.close'] },
      reason: 'audit finding 12',
    });
    await expect(engine.approvals.decide(businessId, person(annId, 'Ann A'), request.request_id, true, '')).rejects.toBeInstanceOf(
      ForbiddenError,
    );
    expect(await engine.approvals.policy(businessId)).toEqual(['policy.change']);
    await engine.approvals.decide(businessId, person(adaId, 'Ada B'), request.request_id, true, 'agreed');
    expect(await engine.approvals.policy(businessId)).toEqual(['case.close', 'list.add', 'list.remove', 'policy.change']);
  });

  it('answers a gated blacklist change with 202 and the request, and applies it when a second person approves', async () => {
    const { engine, tenantA, call } = api;
    const businessId = tenantA.businessId;
    const res = await call('POST', '/api/v1/transaction-monitoring/blacklist-account', { body: { accountNumber: '5550009' } });
    expect(res.status).toBe(202);
    const data = (res.body as { data: { requestId: string; status: string; maker: string } }).data;
    expect(data).toMatchObject({ status: 'pending', maker: 'API key tenant-a' });
    expect((await engine.monitoring.listBlacklist(businessId, 'accounts', { page: 1, limit: 10 })).total).toBe(0);
    expect((await call('GET', `/api/v1/approvals/${data.requestId}`)).body).toMatchObject({ data: { status: 'pending' } });
    // An API key is no person: there is no route for it to approve by, and the decider refuses it.
    expect((await call('POST', `/api/v1/approvals/${data.requestId}/approve`)).status).toBe(404);
    await expect(
      engine.approvals.decide(businessId, { kind: 'api-key', id: 'apikey:x', name: 'API key x' }, data.requestId, true, ''),
    ).rejects.toBeInstanceOf(ForbiddenError);
    await engine.approvals.decide(businessId, person(adaId, 'Ada B'), data.requestId, true, '');
    const list = await engine.monitoring.listBlacklist(businessId, 'accounts', { page: 1, limit: 10 });
    expect(list.entries.map((e) => e.value)).toEqual(['5550009']);
    const decided = (await call('GET', '/api/v1/approvals?status=decided')).body as { data: { requestId: string }[] };
    expect(decided.data.find((r) => r.requestId === data.requestId)).toMatchObject({ status: 'approved', checker: 'Ada B' });
  });

  it('does not close a case by PATCH under the policy until a second person approves, and the maker key bound to a person cannot', async () => {
    const { engine, tenantA, call } = api;
    const businessId = tenantA.businessId;
    const bound = await engine.auth.issue({ name: 'ann-key', businessId, userId: annId });
    const created = await call('POST', '/api/v1/case-management/case', {
      body: {
        module: 'transaction-monitoring',
        record: { id: 'cust-77', type: 'transaction', name: 'NIP-000777' },
        title: 'Structuring',
        description: 'Many small transfers',
        priority: 'high',
      },
    });
    expect(created.body).toMatchObject({ message: 'Case created' });
    const caseId = (created.body as { data: { _id: string } }).data._id;
    const res = await call('PATCH', `/api/v1/case-management/case/${caseId}`, { body: { status: 'closed' }, key: bound });
    expect(res.status).toBe(202);
    const requestId = (res.body as { data: { requestId: string; maker: string } }).data.requestId;
    expect((res.body as { data: { maker: string } }).data.maker).toBe('Ann A');
    expect((await engine.cases.get(businessId, caseId)).status).not.toBe('closed');
    await expect(engine.approvals.decide(businessId, person(annId, 'Ann A'), requestId, true, '')).rejects.toBeInstanceOf(ForbiddenError);
    await engine.approvals.decide(businessId, person(adaId, 'Ada B'), requestId, true, 'checked');
    const closed = await engine.cases.get(businessId, caseId);
    expect(closed.status).toBe('closed');
    expect(JSON.stringify(closed.comments)).toContain('requested by Ann A, approved by Ada B');
  });

  it('issues a key on approval and hands its secret to the approver, once', async () => {
    const { engine, tenantA } = api;
    const businessId = tenantA.businessId;
    const request = await engine.approvals.request(businessId, person(annId, 'Ann A'), {
      action: 'apikey.create',
      subject: { kind: 'api-key', id: 'card switch' },
      summary: 'Create the API key card switch',
      payload: { name: 'card switch' },
      reason: '',
    });
    expect((await engine.auth.listOf(businessId)).map((k) => k.name)).not.toContain('card switch');
    const { result } = await engine.approvals.decide(businessId, person(adaId, 'Ada B'), request.request_id, true, '');
    const issued = result as { apiKey: string; apiSecret: string };
    expect(await engine.auth.verify(issued.apiKey, issued.apiSecret)).toMatchObject({ businessId, keyName: 'card switch' });
    expect(JSON.stringify(await engine.approvals.get(businessId, request.request_id))).not.toContain(issued.apiSecret);
  });
});
