import { z } from '@hono/zod-openapi';
import type { EventType } from '../../webhooks/events.js';
import type { App } from '../env.js';

// The OpenAPI 3.1 `webhooks` section: what each event type POSTs to a subscribed endpoint (src/webhooks/event-map.ts
// builds these payloads). Every delivery carries the Standard Webhooks headers; docs/webhooks.md says how to verify.

const at = (description: string) => z.string().openapi({ description, example: '2026-01-01T10:15:00.000Z' });

const Decision = z
  .object({
    transactionId: z.string(),
    reference: z.string().openapi({ description: "The client's transactionData.reference" }),
    action: z.string().openapi({ description: 'approved, review or rejected', example: 'review' }),
    riskScore: z.string().openapi({ example: '45' }),
    ruleIds: z.array(z.string()).openapi({ description: 'The rules that fired' }),
    caseId: z.string().nullable().openapi({ description: 'The case the decision opened or joined; null when approved' }),
    decidedAt: at('When the decision was made'),
  })
  .openapi('DecisionEventData');

const CaseCreated = z
  .object({
    caseId: z.string(),
    status: z.literal('open'),
    priority: z.enum(['low', 'medium', 'high', 'critical']),
    module: z.string().openapi({ example: 'transaction-monitoring' }),
    record: z.object({ type: z.string(), id: z.string() }).openapi({ description: 'What the case investigates' }),
    assignedTo: z.string().nullable().openapi({ description: "The assignee's user id" }),
    openedAt: at('When the case was opened'),
  })
  .openapi('CaseCreatedEventData');

const CaseUpdated = z
  .object({
    caseId: z.string(),
    change: z
      .enum([
        'occurrence',
        'priority',
        'assignee',
        'due_date',
        'escalation',
        'comment',
        'task',
        'attachment',
        'closure_requested',
        'closure_rejected',
        'disposition',
      ])
      .openapi({ description: 'What changed; GET the case for its new state' }),
    by: z.string().openapi({ description: "The user id of who made the change ('system' for the engine)" }),
    updatedAt: at('When it changed'),
  })
  .openapi('CaseUpdatedEventData');

const CaseStatusChanged = z
  .object({
    caseId: z.string(),
    from: z.string().openapi({ example: 'open' }),
    to: z.string().openapi({ example: 'in progress' }),
    by: z.string(),
    changedAt: at('When the status changed'),
  })
  .openapi('CaseStatusChangedEventData');

const CaseAlertAdded = z
  .object({
    caseId: z.string(),
    transactionId: z.string(),
    reference: z.string(),
    action: z.string(),
    score: z.string(),
    priority: z.string(),
    ruleIds: z.array(z.string()),
    decidedAt: at('When the decision behind the alert was made'),
    addedAt: at('When the alert joined the case'),
  })
  .openapi('CaseAlertAddedEventData');

const CddCompleted = z
  .object({
    requestId: z.string(),
    riskScore: z.number().openapi({ description: "The customer's overall risk score after the request", example: 35 }),
    completedAt: at('When the request completed'),
  })
  .openapi('CddRequestCompletedEventData');

const MatchFound = z
  .object({
    checkId: z.string().openapi({ description: 'GET the check for the matches themselves' }),
    matches: z.object({ pep: z.number().int(), sanction: z.number().int(), adverseMedia: z.number().int() }),
    completedAt: at('When the check completed'),
  })
  .openapi('ScreeningMatchFoundEventData');

const ReportStatus = z
  .object({
    reportId: z.string(),
    status: z.enum(['draft', 'approved', 'submitted', 'acknowledged', 'rejected']),
    changedAt: at('When the report reached this status'),
  })
  .openapi('ReportStatusChangedEventData');

const PAYLOADS: Record<EventType, { summary: string; data: z.ZodType }> = {
  'decision.created': { summary: 'Every instant decision (opt-in: one delivery per transaction)', data: Decision },
  'decision.flagged': { summary: 'A decision other than approved', data: Decision },
  'case.created': { summary: 'A case was opened', data: CaseCreated },
  'case.updated': { summary: 'A case changed (other than its status or alerts)', data: CaseUpdated },
  'case.status_changed': { summary: "A case's status changed", data: CaseStatusChanged },
  'case.alert_added': { summary: 'A flagged decision joined a case as an alert', data: CaseAlertAdded },
  'cdd.request.completed': { summary: 'A CDD request finished its checks', data: CddCompleted },
  'screening.match.found': { summary: 'A screening check found at least one match', data: MatchFound },
  'report.status_changed': { summary: 'A regulatory report moved through its lifecycle', data: ReportStatus },
};

const headers = z.object({
  'webhook-id': z.string().openapi({ description: 'The same on every attempt of a delivery: drop duplicates by it' }),
  'webhook-timestamp': z.string().openapi({ description: 'Unix seconds of this attempt' }),
  'webhook-signature': z.string().openapi({ description: 'v1,<base64 HMAC-SHA256>, one per secret in use, space-separated' }),
});

export function registerWebhookPayloads(app: App): void {
  for (const [type, { summary, data }] of Object.entries(PAYLOADS)) {
    app.openAPIRegistry.registerWebhook({
      method: 'post',
      path: type,
      tags: ['Webhooks'],
      summary,
      request: {
        headers,
        body: {
          required: true,
          content: {
            'application/json': { schema: z.object({ type: z.literal(type), timestamp: at('When the event was recorded'), data }) },
          },
        },
      },
      responses: {
        200: { description: 'Any 2xx: delivered. 410: the delivery is given up. Anything else, or no answer: retried.' },
      },
    });
  }
}
