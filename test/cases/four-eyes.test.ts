import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { policyStream } from '../../src/approvals/events.js';
import { caseStream } from '../../src/cases/index.js';
import { caseSettingsStream } from '../../src/cases/events.js';
import { ConflictError, ForbiddenError } from '../../src/errors.js';
import { testEngine, type TestEngine } from '../helpers.js';

describe('four eyes and the queue reads', () => {
  let t: TestEngine;
  beforeAll(async () => {
    t = await testEngine();
  });
  afterAll(async () => t?.close());

  const record = (id: string, name = `Customer ${id}`) => ({ id, type: 'customer', name });

  it("closes at once by itself; a log's old fourEyes puts closing and report approval under the policy until a whole policy is set", async () => {
    const { approvals, cases, store, users } = t.engine;
    const ann = await users.create({ businessId: 'fe' }, { firstName: 'Ann', lastName: 'A', email: 'ann@fe.example', role: 'analyst' });
    const bob = await users.create({ businessId: 'fe' }, { firstName: 'Bob', lastName: 'B', email: 'bob@fe.example', role: 'admin' });
    const asAnn = { businessId: 'fe', userId: ann._id };
    const asBob = { businessId: 'fe', userId: bob._id };
    const annParty = { kind: 'user' as const, id: ann._id, name: 'Ann A' };
    const bobParty = { kind: 'user' as const, id: bob._id, name: 'Bob B' };
    const open = (id: string) => cases.create(asAnn, { module: 'cdd', record: record(id), title: id, description: '', priority: 'low' });

    const quick = await open('c1');
    await expect(cases.closeWithDisposition(asAnn, quick._id, 'made up')).rejects.toThrow(/disposition must be one of/);
    await cases.closeWithDisposition(asAnn, quick._id, 'false positive');
    expect((await cases.get('fe', quick._id)).status).toBe('closed');
    expect((await cases.closure('fe', quick._id)).disposition).toBe('false positive');
    expect(await approvals.policy('fe')).toEqual(['policy.change']);

    // A log written when four eyes was a case setting: the setting, then a closure asked for under it.
    const by = { _id: ann._id, firstName: 'Ann', lastName: 'A' };
    const old = { fourEyes: true, groupBy: 'customer', freshCaseAfterHours: null, timeZone: 'UTC' };
    await store.append(caseSettingsStream('fe'), [{ type: 'CaseSettingsChanged', data: old }], { metadata: { businessId: 'fe' } });
    expect(await approvals.policy('fe')).toEqual(['case.close', 'report.approve', 'policy.change']);
    expect(await cases.settings('fe')).not.toHaveProperty('fourEyes');
    // A settings change never writes the old setting again.
    await cases.changeSettings(asBob, { timeZone: 'Europe/London' });
    expect((await store.readStream(caseSettingsStream('fe'))).at(-1)?.data).not.toHaveProperty('fourEyes');
    expect(await approvals.needsApproval('fe', 'case.close')).toBe(true);

    const k = await open('c2');
    await store.append(caseStream('fe', k._id), [{ type: 'CaseClosureRequested', data: { caseId: k._id, by, disposition: 'reported' } }], {
      expectedVersion: 1,
      metadata: { businessId: 'fe' },
    });
    await expect(cases.decideClosure(asAnn, k._id, true)).rejects.toBeInstanceOf(ForbiddenError);
    await expect(cases.update(asAnn, k._id, { status: 'in progress' })).rejects.toBeInstanceOf(ConflictError);
    const closed = await cases.decideClosure(asBob, k._id, true);
    expect(closed).toMatchObject({ status: 'closed', disposition: 'reported' });
    expect(closed.log.at(-2)?.message).toBe('Disposition: reported, requested by Ann A and approved by Bob B');

    // A policy set in that log, which knew nothing of the setting, leaves its actions under four eyes.
    await store.append(policyStream('fe'), [{ type: 'ApprovalPolicySet', data: { actions: ['list.add'], requestId: 'old' } }], {
      metadata: { businessId: 'fe' },
    });
    expect(await approvals.policy('fe')).toEqual(['case.close', 'report.approve', 'list.add', 'policy.change']);
    // A policy changed now is the whole policy: closing is off when it leaves closing out.
    const change = await approvals.request('fe', annParty, {
      action: 'policy.change',
      subject: { kind: 'policy', id: 'four-eyes' },
      summary: 'Lists only',
      payload: { actions: ['list.add'] },
      reason: '',
    });
    await expect(approvals.decide('fe', annParty, change.request_id, true, '')).rejects.toBeInstanceOf(ForbiddenError);
    await approvals.decide('fe', bobParty, change.request_id, true, '');
    expect(await approvals.policy('fe')).toEqual(['list.add', 'policy.change']);
    // An old setting's event that says false, replayed after, changes nothing more.
    await store.append(caseSettingsStream('fe'), [{ type: 'CaseSettingsChanged', data: { ...old, fourEyes: false } }], {
      metadata: { businessId: 'fe' },
    });
    expect(await approvals.policy('fe')).toEqual(['list.add', 'policy.change']);
  });

  it("reads a closure written as 'reported to FIU' (the disposition's former name) as reported, its log entry worded as written", async () => {
    const { cases, store } = t.engine;
    const actor = { businessId: 'fe' };
    const k = await cases.create(actor, { module: 'cdd', record: record('old'), title: 'old', description: '', priority: 'low' });
    const by = { _id: 'system', firstName: 'System', lastName: '' };
    const old = { caseId: k._id, by, disposition: 'reported to FIU', requestedBy: by };
    await store.append(
      caseStream('fe', k._id),
      [
        { type: 'CaseDispositionSet', data: old },
        { type: 'CaseStatusChanged', data: { caseId: k._id, by, from: 'open', to: 'closed' } },
      ],
      { expectedVersion: 1, metadata: { businessId: 'fe' } },
    );
    expect(await cases.closure('fe', k._id)).toMatchObject({ disposition: 'reported', status: 'closed' });
    const read = await cases.get('fe', k._id);
    expect(read.disposition).toBe('reported');
    expect(read.log.at(-2)?.message).toBe('Disposition: reported to FIU, by System');
  });

  it('filters by record text and age, sorts by priority, and counts per status', async () => {
    const { cases } = t.engine;
    const actor = { businessId: 'q' };
    const make = (id: string, name: string, priority: 'low' | 'high' | 'critical') =>
      cases.create(actor, { module: 'aml', record: record(id, name), title: id, description: '', priority });
    await make('q1', 'Ada Obi', 'low');
    await make('q2', 'Chinedu 100%_Okeke', 'critical');
    const third = await make('q3', 'Ada Lovelace', 'high');
    await cases.update(actor, third._id, { status: 'in progress' });

    const byName = await cases.list('q', { recordSearch: 'ADA' }, { page: 1, limit: 10 });
    expect(byName.cases.map((c) => c.record.id).sort()).toEqual(['q1', 'q3']);
    expect((await cases.list('q', { recordSearch: '100%_' }, { page: 1, limit: 10 })).total).toBe(1);
    expect((await cases.list('q', { recordSearch: '%' }, { page: 1, limit: 10 })).total).toBe(1);
    const sorted = await cases.list('q', {}, { page: 1, limit: 10 }, 'priority');
    expect(sorted.cases.map((c) => c.priority)).toEqual(['critical', 'high', 'low']);
    expect((await cases.list('q', { openedBefore: '2000-01-01T00:00:00.000Z' }, { page: 1, limit: 10 })).total).toBe(0);
    const counts = await cases.read.countsByStatus('q', {});
    expect(Object.fromEntries(counts)).toEqual({ open: 2, 'in progress': 1 });
  });
});
