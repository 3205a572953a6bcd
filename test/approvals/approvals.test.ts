import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvalDecider } from '../../src/approvals/decider.js';
import type { Party } from '../../src/approvals/index.js';
import { csrfFor } from '../../src/console/security.js';
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
    const res = await call('PATCH', `/api/v1/case-management/case/${caseId}`, {
      body: { status: 'closed', disposition: 'false positive', note: 'Known payroll' },
      key: bound,
    });
    expect(res.status).toBe(202);
    const requestId = (res.body as { data: { requestId: string; maker: string } }).data.requestId;
    expect((res.body as { data: { maker: string } }).data.maker).toBe('Ann A');
    expect((await engine.cases.get(businessId, caseId)).status).not.toBe('closed');
    await expect(engine.approvals.decide(businessId, person(annId, 'Ann A'), requestId, true, '')).rejects.toBeInstanceOf(ForbiddenError);
    await engine.approvals.decide(businessId, person(adaId, 'Ada B'), requestId, true, 'checked');
    const closed = await engine.cases.get(businessId, caseId);
    expect(closed.status).toBe('closed');
    expect(closed.comments.map((m) => m.text)).toEqual(['Known payroll (requested by Ann A, approved by Ada B)']);
    expect(await engine.cases.closure(businessId, caseId)).toMatchObject({ disposition: 'false positive' });
  });

  it('closes in bulk through the policy: each case a request, which its maker cannot approve by the API or the console', async () => {
    const { engine, tenantA, call, app } = api;
    const businessId = tenantA.businessId;
    expect(await engine.approvals.needsApproval(businessId, 'case.close')).toBe(true);
    const bound = await engine.auth.issue({ name: 'ann-bulk-key', businessId, userId: annId });
    const open = async (id: string) =>
      (
        await engine.cases.create(
          { businessId },
          { module: 'aml', record: { id, type: 'customer', name: id }, title: `Bulk ${id}`, description: '', priority: 'low' },
        )
      )._id;
    const [one, two, busy] = [await open('bulk-1'), await open('bulk-2'), await open('bulk-3')];
    await engine.cases.update({ businessId }, busy, { status: 'in progress' });
    const res = await call('POST', '/api/v1/case-management/bulk', {
      body: { caseIds: [one, two, busy, 'nope'], action: { type: 'close', disposition: 'false positive', note: 'Payroll batch' } },
      key: bound,
    });
    expect(res.status).toBe(202);
    const data = res.body as { data: { results: { caseId: string; ok: boolean; requestId?: string; error?: string }[]; waiting: number } };
    expect(data.data).toMatchObject({ succeeded: 0, waiting: 2, failed: 2 });
    expect(data.data.results.map((r) => [r.caseId, r.ok, r.error])).toEqual([
      [one, true, undefined],
      [two, true, undefined],
      [busy, false, 'conflict'],
      ['nope', false, 'not_found'],
    ]);
    for (const id of [one, two]) expect((await engine.cases.get(businessId, id)).status).toBe('open');
    // Asking again while a closure waits is refused, case by case.
    const again = await call('POST', '/api/v1/case-management/bulk', {
      body: { caseIds: [one], action: { type: 'close', disposition: 'reported' } },
    });
    expect((again.body as typeof data).data.results).toEqual([
      { caseId: one, ok: false, error: 'conflict', message: 'A closure already awaits a second person' },
    ]);
    const [first, second] = data.data.results.map((r) => r.requestId!);

    // Ann, the maker through her key, signs in to the console: her own request is refused there too.
    await engine.signIn.setPassword(businessId, annId, 'checker-pass-phrase-long', 'test');
    const { token } = await engine.signIn.signIn('ann@a.example', 'checker-pass-phrase-long');
    const approveInConsole = (requestId: string) =>
      app.request(`/console/approvals/${requestId}`, {
        method: 'POST',
        headers: {
          Cookie: `console_session=${token}`,
          'Content-Type': 'application/x-www-form-urlencoded',
          'X-CSRF-Token': csrfFor(token),
        },
        body: new URLSearchParams({ decision: 'approve' }).toString(),
      });
    const refused = await approveInConsole(first!);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('cannot approve or reject their own request');
    // No API route approves, whoever calls it.
    expect((await call('POST', `/api/v1/approvals/${first}/approve`)).status).toBe(404);
    await engine.approvals.decide(businessId, person(adaId, 'Ada B'), first!, true, '');
    expect(await engine.cases.closure(businessId, one)).toMatchObject({ status: 'closed', disposition: 'false positive' });
    await engine.approvals.decide(businessId, person(adaId, 'Ada B'), second!, false, 'Not payroll');
    expect((await engine.cases.get(businessId, two)).status).toBe('open');
  });

  it("answers a change of the case settings' fourEyes as a policy change, which takes a second person", async () => {
    const { engine, tenantA, call } = api;
    const businessId = tenantA.businessId;
    expect((await call('GET', '/api/v1/case-management/settings')).body).toMatchObject({ data: { fourEyes: true } });
    const res = await call('PATCH', '/api/v1/case-management/settings', { body: { fourEyes: false, timeZone: 'Africa/Lagos' } });
    expect(res.status).toBe(202);
    const request = (res.body as { data: { requestId: string; action: string } }).data;
    expect(request.action).toBe('policy.change');
    // The other settings change at once; four eyes waits.
    expect(await engine.cases.settings(businessId)).toMatchObject({ timeZone: 'Africa/Lagos' });
    expect(await engine.approvals.needsApproval(businessId, 'case.close')).toBe(true);
    await engine.approvals.decide(businessId, person(adaId, 'Ada B'), request.requestId, true, '');
    expect(await engine.approvals.policy(businessId)).toEqual(['list.add', 'list.remove', 'policy.change']);
    expect((await call('GET', '/api/v1/case-management/settings')).body).toMatchObject({ data: { fourEyes: false } });
    // Unchanged, it asks for nothing.
    expect((await call('PATCH', '/api/v1/case-management/settings', { body: { fourEyes: false } })).status).toBe(200);
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
