// Which stored domain events become which webhook events, and the small payload each carries: ids, status and
// times, never the internal event itself, so a change inside a domain does not change what receivers get.
// One entry per source event type; docs/webhooks.md and the OpenAPI `webhooks` section document each payload.
import type { CaseEvent } from '../cases/events.js';
import type { RequestEvent } from '../cdd/events.js';
import type { TransactionDecidedData } from '../monitoring/events.js';
import { transactionSchema } from '../rules/index.js';
import type { AmlEvent } from '../screening/events.js';
import type { StoredEvent } from '../store/index.js';
import type { EventType } from './events.js';
import { inStreamId } from '../stream-ids.js';

export interface OutEvent {
  type: EventType;
  /** What the delivery reports on (a case id, a transaction id), for the delivery listing. */
  subject: string;
  data: Record<string, unknown>;
}

type DataOf<E extends { type: string; data: unknown }, T extends E['type']> = Extract<E, { type: T }>['data'];
type Mapper = (event: StoredEvent) => OutEvent[];

/** The action every decision that raises nothing gets: the transaction schema's mildest (the pipeline's test too). */
const APPROVED = transactionSchema.actions[0]!.name;

function decision(event: StoredEvent): OutEvent[] {
  const d = event.data as TransactionDecidedData;
  const data = {
    transactionId: d.transactionId,
    reference: d.reference,
    action: d.decision.action.result,
    riskScore: d.decision.riskScore,
    ruleIds: (d.decision.ruleResult ?? []).map((r) => r.id),
    caseId: d.caseId,
    decidedAt: d.decidedAt,
  };
  const created: OutEvent = { type: 'decision.created', subject: d.transactionId, data };
  return data.action === APPROVED ? [created] : [created, { type: 'decision.flagged', subject: d.transactionId, data }];
}

/** A change to a case other than its opening, status or alerts: named, with who made it; the case itself says the rest. */
const caseChange =
  (change: string): Mapper =>
  (event) => {
    const d = event.data as { caseId: string; by: { _id: string } };
    return [{ type: 'case.updated', subject: d.caseId, data: { caseId: d.caseId, change, by: d.by._id, updatedAt: event.recordedAt } }];
  };

/** Matches in a screening result, whichever check kind produced it (src/screening/jobs.ts shapes them). */
function matchCounts(result: unknown): { pep: number; sanction: number; adverseMedia: number } {
  const r = (result ?? {}) as Record<string, any>;
  const count = (v: any): number => (Array.isArray(v) ? v.length : Array.isArray(v?.results) ? v.results.length : 0);
  if (r.type === 'adverse media') return { pep: 0, sanction: 0, adverseMedia: count(r.result) };
  if (r.type === 'sanction') return { pep: 0, sanction: count(r.results), adverseMedia: 0 };
  return {
    pep: count(r.pep),
    sanction: count(r.sanction),
    adverseMedia: Array.isArray(r.adverseMedia?.result) ? r.adverseMedia.result.length : 0,
  };
}

/** A report's move through its lifecycle (src/reports): streams `report-<businessId>-<reportId>`. */
const reportStatus =
  (status: string): Mapper =>
  (event) => {
    const reportId = event.streamId.slice(`report-${inStreamId(event.metadata.businessId)}-`.length);
    return [{ type: 'report.status_changed', subject: reportId, data: { reportId, status, changedAt: event.recordedAt } }];
  };

export const EVENT_MAP: Readonly<Record<string, Mapper>> = {
  TransactionDecided: decision,
  CaseOpened: (event) => {
    const d = event.data as DataOf<CaseEvent, 'CaseOpened'>;
    const data = {
      caseId: d.caseId,
      status: 'open',
      priority: d.priority,
      module: d.module,
      record: { type: d.record.type, id: d.record.id },
      assignedTo: d.assignedTo?._id ?? null,
      openedAt: event.recordedAt,
    };
    return [{ type: 'case.created', subject: d.caseId, data }];
  },
  CaseStatusChanged: (event) => {
    const d = event.data as DataOf<CaseEvent, 'CaseStatusChanged'>;
    const data = { caseId: d.caseId, from: d.from, to: d.to, by: d.by._id, changedAt: event.recordedAt };
    return [{ type: 'case.status_changed', subject: d.caseId, data }];
  },
  CaseAlertAdded: (event) => {
    const { caseId, alert } = event.data as DataOf<CaseEvent, 'CaseAlertAdded'>;
    const data = {
      caseId,
      transactionId: alert.transactionId,
      reference: alert.reference,
      action: alert.action,
      score: alert.score,
      priority: alert.priority,
      ruleIds: alert.rules,
      decidedAt: alert.decidedAt,
      addedAt: event.recordedAt,
    };
    return [{ type: 'case.alert_added', subject: caseId, data }];
  },
  CaseOccurrenceLogged: caseChange('occurrence'),
  CasePriorityChanged: caseChange('priority'),
  CaseAssigned: caseChange('assignee'),
  CaseDueDateChanged: caseChange('due_date'),
  CaseEscalationChanged: caseChange('escalation'),
  CaseCommentAdded: caseChange('comment'),
  CaseTaskAdded: caseChange('task'),
  CaseTaskStatusChanged: caseChange('task'),
  CaseAttachmentAdded: caseChange('attachment'),
  CaseClosureRequested: caseChange('closure_requested'),
  CaseClosureRejected: caseChange('closure_rejected'),
  CaseDispositionSet: caseChange('disposition'),
  CddRequestCompleted: (event) => {
    const d = event.data as DataOf<RequestEvent, 'CddRequestCompleted'>;
    const data = { requestId: d.requestId, riskScore: d.overallRiskLevel.riskScore, completedAt: event.recordedAt };
    return [{ type: 'cdd.request.completed', subject: d.requestId, data }];
  },
  ScreeningCheckCompleted: (event) => {
    const d = event.data as DataOf<AmlEvent, 'ScreeningCheckCompleted'>;
    const matches = matchCounts(d.result);
    if (matches.pep + matches.sanction + matches.adverseMedia === 0) return [];
    return [{ type: 'screening.match.found', subject: d.checkId, data: { checkId: d.checkId, matches, completedAt: d.completedAt } }];
  },
  ReportDrafted: reportStatus('draft'),
  ReportApproved: reportStatus('approved'),
  ReportSubmitted: reportStatus('submitted'),
  ReportAcknowledged: reportStatus('acknowledged'),
  ReportRejected: reportStatus('rejected'),
};

/** The source event types, for reading only those from the log. */
export const SOURCE_TYPES: readonly string[] = Object.keys(EVENT_MAP);
