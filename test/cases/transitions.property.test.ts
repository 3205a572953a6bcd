import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CASE_STATUSES, CASE_TRANSITIONS, type CaseStatus } from '../../src/cases/index.js';
import { ConflictError } from '../../src/errors.js';
import { verifyReplay } from '../../src/projections/index.js';
import { testEngine, type TestEngine } from '../helpers.js';

it('the transition table: only listed moves, closed is final, every status is reachable from open', () => {
  expect(CASE_TRANSITIONS.closed).toEqual([]);
  const reached = new Set<CaseStatus>(['open']);
  for (let grew = true; grew; ) {
    grew = false;
    for (const s of [...reached])
      for (const n of CASE_TRANSITIONS[s]) {
        if (!reached.has(n)) {
          reached.add(n);
          grew = true;
        }
      }
  }
  expect([...reached].sort()).toEqual([...CASE_STATUSES].sort());
});

// One engine for every run: each run opens a case of its own (a record of its own, so no run finds another's case
// open), and the replay check covers the cases of all runs.
let t: TestEngine;
let runs = 0;
beforeAll(async () => {
  t = await testEngine({ workerIntervalMs: 0 });
});
afterAll(() => t.close());

it('random status sequences: one log entry per accepted change; illegal ones change nothing; replay rebuilds the case', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.constantFrom(...CASE_STATUSES), { minLength: 1, maxLength: 15 }), async (targets) => {
      const actor = { businessId: 'biz' };
      runs += 1;
      const opened = await t.engine.cases.open({
        businessId: 'biz',
        module: 'aml',
        record: { id: `r${runs}`, type: 'screening', name: 'n' },
        title: 't',
        description: '',
        priority: 'low',
      });
      let status: CaseStatus = 'open';
      let entries = 1;
      for (const to of targets) {
        const before = await t.engine.cases.get('biz', opened._id);
        const legal = to === status || CASE_TRANSITIONS[status].includes(to);
        const result = await t.engine.cases.update(actor, opened._id, { status: to }).catch((e: Error) => e);
        if (legal) {
          expect(result).not.toBeInstanceOf(Error);
          if (to !== status) entries += 1;
          status = to;
        } else {
          expect(result).toBeInstanceOf(ConflictError);
          expect((result as Error).message).toBe(`Case status cannot change from ${status} to ${to}`);
          expect(await t.engine.cases.get('biz', opened._id)).toEqual(before);
        }
        const now = await t.engine.cases.get('biz', opened._id);
        expect(now.status).toBe(status);
        expect(now.log).toHaveLength(entries);
        expect(now.log.at(-1)!.status).toBe(status);
      }
      const report = await verifyReplay(t.engine.db, t.engine.store, t.engine.projections);
      expect(report.diffs).toEqual([]);
    }),
    { numRuns: 30 },
  );
}, 60_000);
