import fc from 'fast-check';
import { expect, it } from 'vitest';
import { ConflictError, ForbiddenError, ValidationError } from '../../src/errors.js';
import { type ReportCommand, reportDecider, type ReportState } from '../../src/reports/decider.js';
import type { Draft, ReportStatus } from '../../src/reports/events.js';

const draft = (missing: number): Draft => ({
  reportId: 'r1',
  kind: 'str',
  caseId: 'c1',
  date: null,
  version: 1,
  correctionOf: null,
  fiu: 'nfiu',
  transactionIds: ['t1'],
  document: { name: 'report', children: [] },
  missing: Array.from({ length: missing }, (_, i) => ({ field: `report.f${i}`, message: 'lacking' })),
  by: 'ann',
});

/** The lifecycle as a table: the status each command needs and the status it leads to. */
const LIFECYCLE: Record<Exclude<ReportCommand['type'], 'DraftReport'>, [ReportStatus, ReportStatus]> = {
  Redraft: ['draft', 'draft'],
  ApproveReport: ['draft', 'approved'],
  SubmitReport: ['approved', 'submitted'],
  AcknowledgeReport: ['submitted', 'acknowledged'],
  RejectReport: ['submitted', 'rejected'],
};

const command = fc.oneof(
  fc.constant<ReportCommand>({ type: 'Redraft', data: draft(0) }),
  fc
    .record({ by: fc.constantFrom('ann', 'bob'), fourEyes: fc.boolean() })
    .map<ReportCommand>((d) => ({ type: 'ApproveReport', data: { reportId: 'r1', ...d } })),
  fc.constant<ReportCommand>({ type: 'SubmitReport', data: { reportId: 'r1', by: 'bob', via: 'download' } }),
  fc.constant<ReportCommand>({ type: 'AcknowledgeReport', data: { reportId: 'r1', by: 'bob', fiuReference: 'NFIU-1' } }),
  fc.constant<ReportCommand>({ type: 'RejectReport', data: { reportId: 'r1', by: 'bob', reason: 'wrong account', fiuReference: null } }),
);

it('a report moves only along draft → approved → submitted → acknowledged or rejected; anything else is a conflict', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 2 }), fc.array(command, { maxLength: 12 }), (missing, commands) => {
      let state: ReportState = reportDecider.evolve(reportDecider.initialState(), { type: 'ReportDrafted', data: draft(missing) });
      for (const c of commands) {
        const [needs, leads] = LIFECYCLE[c.type as keyof typeof LIFECYCLE];
        const attempt = () => reportDecider.decide(c, state);
        if (state.status !== needs) {
          expect(attempt).toThrow(ConflictError);
          continue;
        }
        if (c.type === 'ApproveReport' && state.draft!.missing.length > 0) {
          expect(attempt).toThrow(ValidationError);
          expect(attempt).toThrow(/report\.f0/);
          continue;
        }
        if (c.type === 'ApproveReport' && c.data.fourEyes && c.data.by === state.draft!.by) {
          expect(attempt).toThrow(ForbiddenError);
          continue;
        }
        state = attempt().reduce(reportDecider.evolve, state);
        expect(state.status).toBe(leads);
      }
    }),
    { numRuns: 300 },
  );
});

it('a second draft of an existing report is a conflict', () => {
  const state = reportDecider.evolve(reportDecider.initialState(), { type: 'ReportDrafted', data: draft(0) });
  expect(() => reportDecider.decide({ type: 'DraftReport', data: draft(0) }, state)).toThrow(ConflictError);
});
