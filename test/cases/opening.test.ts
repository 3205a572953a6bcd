import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ExpectedVersionConflictError } from '../../src/store/index.js';
import { testEngine, type TestEngine } from '../helpers.js';

/** The business of the running test: each test has one of its own, so the file's tests can share one engine. */
let biz = '';
let tests = 0;

const flagged = (recordId = 'tx-1') => ({
  businessId: biz,
  module: 'transaction-monitoring' as const,
  record: { id: recordId, type: 'transaction', name: 'Transfer to ACME' },
  title: 'Transaction flagged',
  description: 'velocity rule',
  priority: 'high' as const,
});

describe('opening cases from other domains', () => {
  let t: TestEngine;
  beforeAll(async () => {
    t = await testEngine();
  });
  afterAll(async () => t.close());
  beforeEach(() => {
    tests += 1;
    biz = `biz_${tests}`;
  });

  it('opens a case atomically with the caller own writes, logged as created by the system', async () => {
    const { caseId, reused, writes } = await t.engine.cases.openingWrites(flagged());
    expect(reused).toBe(false);
    await t.engine.store.appendMany([{ streamId: 'decision-tx-1', events: [{ type: 'TestDecision', data: {} }] }, ...writes], {
      businessId: biz,
    });
    const opened = await t.engine.cases.get(biz, caseId);
    expect(opened).toMatchObject({
      _id: caseId,
      businessProfile: biz,
      status: 'open',
      priority: 'high',
      record: flagged().record,
      isEscalated: false,
    });
    expect(opened.log).toHaveLength(1);
    expect(opened.log[0]).toMatchObject({
      status: 'open',
      message: 'Case created',
      user: { _id: 'system', firstName: 'System', lastName: '' },
    });
  });

  it('reuses the open case of the same record and logs the new occurrence', async () => {
    const first = await t.engine.cases.open(flagged());
    const again = await t.engine.cases.openingWrites({ ...flagged(), title: 'Flagged again' });
    expect(again).toMatchObject({ caseId: first._id, reused: true });
    await t.engine.store.appendMany(again.writes, { businessId: biz });
    const joined = await t.engine.cases.get(biz, first._id);
    expect(joined.log.map((l) => l.message)).toEqual(['Case created', 'New occurrence on high priority: Flagged again (velocity rule)']);
    const other = await t.engine.cases.open(flagged('tx-2'));
    expect(other._id).not.toBe(first._id);
  });

  it('opens a new case once the previous one of the record is resolved or closed', async () => {
    const first = await t.engine.cases.open(flagged());
    await t.engine.cases.update({ businessId: biz }, first._id, { status: 'closed' });
    const second = await t.engine.cases.open(flagged());
    expect(second._id).not.toBe(first._id);
    expect((await t.engine.cases.list(biz, { recordId: 'tx-1' }, { page: 1, limit: 10 })).total).toBe(2);
  });

  it('lets only one of two racing openings of one record commit', async () => {
    const [a, b] = await Promise.all([t.engine.cases.openingWrites(flagged()), t.engine.cases.openingWrites(flagged())]);
    expect(a.reused || b.reused).toBe(false);
    const results = await Promise.allSettled([
      t.engine.store.appendMany(a.writes, { businessId: biz }),
      t.engine.store.appendMany(b.writes, { businessId: biz }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const failed = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(failed.reason).toBeInstanceOf(ExpectedVersionConflictError);
    const retry = await t.engine.cases.openingWrites(flagged());
    expect(retry.reused).toBe(true);
    const concurrent = await Promise.all([t.engine.cases.open(flagged('tx-9')), t.engine.cases.open(flagged('tx-9'))]);
    expect(concurrent[0]._id).toBe(concurrent[1]._id);
  });

  it('rejects a bad opening naming the field', async () => {
    await expect(t.engine.cases.openingWrites({ ...flagged(), module: 'nope' as never })).rejects.toThrow(/module must be one of/);
    await expect(t.engine.cases.openingWrites({ ...flagged(), record: { id: '', type: 'transaction', name: 'x' } })).rejects.toThrow(
      'record.id is required',
    );
  });

  it('names the bound user as the actor when given', async () => {
    const user = await t.engine.users.create(
      { businessId: biz },
      { firstName: 'Ada', lastName: 'Obi', email: 'ada@x.example', role: 'analyst' },
    );
    const opened = await t.engine.cases.open({ ...flagged(), actor: { userId: user._id } });
    expect(opened.log[0]!.user).toEqual({ _id: user._id, firstName: 'Ada', lastName: 'Obi' });
  });
});
