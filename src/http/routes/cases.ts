import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { CASE_TRANSITIONS, type CaseActor } from '../../cases/index.js';
import { CASE_FOUR_EYES_ACTIONS } from '../../approvals/index.js';
import { closeUnderPolicy, isWaiting, type ClosingResult } from '../../approvals/case-closing.js';
import type { Engine } from '../../engine.js';
import { ConflictError, NotFoundError } from '../../errors.js';
import { proofResponse } from './audit.js';
import type { App, AppEnv } from '../env.js';
import { apiMaker, pending, pendingResponse } from './approvals.js';
import { jsonBody, jsonResponse, messageResponse, security } from '../schemas.js';
import {
  AddAttachment,
  AddComment,
  AddTask,
  BulkCases,
  BulkOutcome,
  Case,
  CaseSettings,
  CaseSettingsBody,
  CaseListQuery,
  caseExample,
  CreateCase,
  ListedCase,
  SetTaskStatus,
  UpdateCase,
} from './case-schemas.js';

const BASE = '/api/v1/case-management';
const tags = ['Case management'];
const CaseParams = z.object({ id: z.string().openapi({ description: 'Case id' }) });
const caseResponse = (description: string, message: string) =>
  jsonResponse(z.object({ message: z.string(), data: Case }), description, { message, data: caseExample });

/** Case endpoints answer errors as `{message}` (the interface's case error shape). */
const errors = {
  400: messageResponse(
    'Invalid input; the message names the field',
    'priority: Invalid option: expected one of "low"|"medium"|"high"|"critical"',
  ),
  401: messageResponse('Invalid API credentials', 'Invalid API credentials'),
  404: messageResponse('Case not found', 'Case not found'),
} as const;
const conflict = {
  409: messageResponse(
    'The change is not allowed in the case status (the message names both states), or the case is closed',
    'Case status cannot change from closed to open',
  ),
};

const route = <M extends 'get' | 'post' | 'patch', P extends string>(method: M, path: P, summary: string) => ({
  method,
  path,
  tags,
  summary,
  security,
});

const getCase = createRoute({
  ...route('get', `${BASE}/case/{id}`, 'Read a case with its tasks, comments, attachments and whole activity log'),
  request: { params: CaseParams },
  responses: { 200: caseResponse('The case', 'Case fetched'), ...errors },
});

const listCases = createRoute({
  ...route('get', `${BASE}/listing`, 'List cases, newest first, with overdue ones flagged'),
  request: { query: CaseListQuery },
  responses: {
    200: jsonResponse(
      z.object({
        message: z.string(),
        data: z.object({ cases: z.array(ListedCase), total: z.number(), page: z.number(), limit: z.number() }),
      }),
      'Cases',
      {
        message: 'Cases fetched',
        data: { cases: [{ ...caseExample, dueAt: '2026-02-01T00:00:00.000Z', isOverdue: true }], total: 1, page: 1, limit: 20 },
      },
    ),
    ...errors,
  },
});

const createCase = createRoute({
  ...route('post', `${BASE}/case`, 'Open a case (status open, logged as created)'),
  request: {
    body: jsonBody(CreateCase, {
      module: 'transaction-monitoring',
      record: { id: '6b096e0d-99859ac9c0846c36', type: 'transaction', name: 'NIP-000123' },
      title: 'Transfer to a blacklisted account',
      description: 'Rejected by the blacklist rule; confirm with the customer before release.',
      priority: 'high',
      dueDate: '2026-02-01T00:00:00.000Z',
      tasks: ['Call the customer', 'Check the receiving bank'],
    }),
  },
  responses: {
    201: caseResponse('Created', 'Case created'),
    ...errors,
    409: messageResponse(
      'The record already has an active case',
      'Record transaction 6b096e0d-99859ac9c0846c36 already has an active case 6b09a3f8f77bd077fca3f7b1',
    ),
  },
});

const updateCase = createRoute({
  ...route('patch', `${BASE}/case/{id}`, 'Change status, priority, assignee, due date or escalation; each change is logged'),
  request: { params: CaseParams, body: jsonBody(UpdateCase, { status: 'in progress', priority: 'critical', isEscalated: true }) },
  responses: { 200: caseResponse('Updated', 'Case updated'), 202: pendingResponse, ...errors, ...conflict },
});

const addComment = createRoute({
  ...route('post', `${BASE}/case/{id}/comments`, 'Comment on a case, with attachments (upload keys) and tagged users'),
  request: {
    params: CaseParams,
    body: jsonBody(AddComment, { text: 'Customer confirmed the transfer by phone.', attachments: [], taggedUsers: [] }),
  },
  responses: { 201: caseResponse('Commented', 'Comment added'), ...errors, ...conflict },
});

const addTask = createRoute({
  ...route('post', `${BASE}/case/{id}/tasks`, 'Add a task to a case'),
  request: { params: CaseParams, body: jsonBody(AddTask, { text: 'Request the source of funds' }) },
  responses: { 201: caseResponse('Task added', 'Task added'), ...errors, ...conflict },
});

const setTaskStatus = createRoute({
  ...route('patch', `${BASE}/case/{id}/tasks/{taskId}`, 'Tick or untick a task'),
  request: { params: CaseParams.extend({ taskId: z.string() }), body: jsonBody(SetTaskStatus, { status: true }) },
  responses: { 200: caseResponse('Task updated', 'Task updated'), ...errors, ...conflict },
});

const addAttachment = createRoute({
  ...route('post', `${BASE}/case/{id}/attachments`, 'Attach a completed upload to a case'),
  request: { params: CaseParams, body: jsonBody(AddAttachment, { key: '6b09a94bdb90af88c1ff8ab9.pdf' }) },
  responses: { 201: caseResponse('Attached', 'Attachment added'), ...errors, ...conflict },
});

const logEntryProof = createRoute({
  ...route('get', `${BASE}/case/{id}/log/{logId}/proof`, "One activity-log entry's event as stored, with an inclusion proof"),
  request: { params: CaseParams.extend({ logId: z.string() }) },
  responses: {
    ...proofResponse('The log entry', {
      streamId: 'case-biz_6b09a3f760a92ed3bc904b74-6b09a3f8f77bd077fca3f7b1',
      type: 'CaseStatusChanged',
      schemaVersion: 1,
      data: { caseId: '6b09a3f8f77bd077fca3f7b1', by: caseExample.log[0]!.user, from: 'open', to: 'in progress' },
    }),
    ...errors,
    409: messageResponse('The log was altered', 'the event at position 24 is not the one the signed tree holds: the log was altered'),
  },
});

const bulkCases = createRoute({
  ...route('post', `${BASE}/bulk`, 'Assign, change the status of, or close up to 500 cases, each with its own events'),
  request: {
    body: jsonBody(
      BulkCases,
      {
        filters: { subject: 'user:cust_0042', status: 'open' },
        action: { type: 'close', disposition: 'false positive', note: 'Salary payments from a known employer.' },
      },
      'The cases, as `caseIds` or as the listing `filters` (exactly one), and the action. A case the action cannot apply to is reported in its result; the others go on.',
    ),
  },
  responses: {
    200: jsonResponse(z.object({ message: z.string(), data: BulkOutcome }), 'One result per case', {
      message: 'Bulk action done',
      data: {
        results: [
          { caseId: '6b09a3f8f77bd077fca3f7b1', ok: true },
          {
            caseId: '6b09a3f8f77bd077fca3f7b2',
            ok: false,
            error: 'conflict',
            message: 'Case status cannot change from in progress to closed',
          },
        ],
        succeeded: 1,
        waiting: 0,
        failed: 1,
      },
    }),
    202: jsonResponse(
      z.object({ message: z.string(), data: BulkOutcome }),
      "Closing is under the business's four-eyes policy: each closable case waits as an approval request (`requestId`)",
      {
        message: 'Bulk action done; 1 closure waits for a second person',
        data: {
          results: [{ caseId: '6b09a3f8f77bd077fca3f7b1', ok: true, requestId: '01JDAPPROVAL0000000000000' }],
          succeeded: 0,
          waiting: 1,
          failed: 0,
        },
      },
    ),
    400: messageResponse(
      'Invalid input, or more than 500 cases selected; the message names the field',
      'caseIds: Too big: expected array to have <=500 items',
    ),
    401: errors[401],
  },
});

const settingsExample = (message: string) => ({
  message,
  data: {
    fourEyes: false,
    groupBy: 'customer' as const,
    freshCaseAfterHours: 720,
    timeZone: 'Europe/London',
    dueHours: { critical: 24, high: 72, medium: 168, low: 720 },
  },
});

const readSettings = createRoute({
  ...route('get', `${BASE}/settings`, "The business's case settings: four eyes and alert grouping"),
  responses: {
    200: jsonResponse(z.object({ message: z.string(), data: CaseSettings }), 'Settings', settingsExample('Settings fetched')),
    401: errors[401],
  },
});

const changeSettings = createRoute({
  ...route('patch', `${BASE}/settings`, "Change the business's case settings; unchanged ones log nothing"),
  request: { body: jsonBody(CaseSettingsBody, { groupBy: 'customer', freshCaseAfterHours: 720 }) },
  responses: {
    200: jsonResponse(
      z.object({ message: z.string(), data: CaseSettings }),
      'Settings after the change',
      settingsExample('Settings changed'),
    ),
    202: pendingResponse,
    400: errors[400],
    401: errors[401],
  },
});

/** The case settings with four eyes as the business's approvals policy says (closing under it). */
const settingsOf = async (engine: Engine, businessId: string) => ({
  ...(await engine.cases.settings(businessId)),
  fourEyes: await engine.approvals.needsApproval(businessId, 'case.close'),
});

const actorOf = (c: Context<AppEnv>): CaseActor => {
  const p = c.get('principal');
  return { businessId: p.businessId, userId: p.userId, apiKey: p.apiKey, keyName: p.keyName, requestId: c.get('requestId') };
};

export function registerCaseRoutes(app: App, engine: Engine): void {
  app.openapi(getCase, async (c) => {
    const found = await engine.cases.get(c.get('principal').businessId, c.req.valid('param').id);
    return c.json({ message: 'Case fetched', data: found }, 200);
  });
  app.openapi(logEntryProof, async (c) => {
    const { id, logId } = c.req.valid('param');
    const position = await engine.cases.logEntryPosition(c.get('principal').businessId, id, logId);
    return c.json({ message: 'Proof fetched', data: await engine.audit.prove(position) }, 200);
  });
  app.openapi(listCases, async (c) => {
    const { page, limit, ...filters } = c.req.valid('query');
    const { cases, total } = await engine.cases.list(c.get('principal').businessId, filters, { page, limit });
    return c.json({ message: 'Cases fetched', data: { cases, total, page, limit } }, 200);
  });
  app.openapi(bulkCases, async (c) => {
    const { caseIds, filters, action } = c.req.valid('json');
    const selection = caseIds ? { caseIds } : { filters: filters ?? {} };
    // Closing goes through the business's policy, as the console's bulk close does: each case may wait as a request.
    const results: ClosingResult[] =
      action.type === 'close'
        ? await closeUnderPolicy(engine, actorOf(c), await apiMaker(c, engine), selection, action)
        : await engine.cases.bulk(actorOf(c), selection, action);
    const waiting = results.filter(isWaiting).length;
    const succeeded = results.filter((r) => r.ok).length - waiting;
    const data = { results, succeeded, waiting, failed: results.length - succeeded - waiting };
    const wait = `${waiting} ${waiting === 1 ? 'closure waits' : 'closures wait'} for a second person`;
    if (waiting > 0) return c.json({ message: `Bulk action done; ${wait}`, data }, 202);
    return c.json({ message: 'Bulk action done', data }, 200);
  });
  app.openapi(readSettings, async (c) => {
    return c.json({ message: 'Settings fetched', data: await settingsOf(engine, c.get('principal').businessId) }, 200);
  });
  app.openapi(changeSettings, async (c) => {
    const { fourEyes, ...changes } = c.req.valid('json');
    const businessId = c.get('principal').businessId;
    if (Object.keys(changes).length > 0) await engine.cases.changeSettings(actorOf(c), changes);
    // Four eyes is the approvals policy's: a change of it is a policy change, which always takes a second person.
    const policy = await engine.approvals.policy(businessId);
    if (fourEyes !== undefined && fourEyes !== policy.includes('case.close')) {
      const actions = fourEyes ? [...policy, ...CASE_FOUR_EYES_ACTIONS] : policy.filter((a) => !CASE_FOUR_EYES_ACTIONS.includes(a));
      const row = await engine.approvals.request(businessId, await apiMaker(c, engine), {
        action: 'policy.change',
        subject: { kind: 'policy', id: 'four-eyes' },
        summary: `Four eyes ${fourEyes ? 'on' : 'off'} for closing cases and approving reports`,
        payload: { actions },
        reason: '',
      });
      return pending(c, row);
    }
    return c.json({ message: 'Settings changed', data: await settingsOf(engine, businessId) }, 200);
  });
  app.openapi(createCase, async (c) => {
    const created = await engine.cases.create(actorOf(c), c.req.valid('json'));
    return c.json({ message: 'Case created', data: created }, 201);
  });
  app.openapi(updateCase, async (c) => {
    const caseId = c.req.valid('param').id;
    const update = c.req.valid('json');
    const businessId = c.get('principal').businessId;
    const { disposition, note, ...changes } = update;
    // Closing takes a disposition and goes through the business's policy; the other changes of the body are made
    // first, once the case is known to close from its status (an illegal closing changes nothing).
    const status = disposition === undefined ? undefined : (await engine.cases.get(businessId, caseId)).status;
    if (disposition !== undefined && status !== undefined && status !== 'closed') {
      if (!CASE_TRANSITIONS[status].includes('closed')) throw new ConflictError(`Case status cannot change from ${status} to closed`);
      const { status: _, ...others } = changes;
      if (Object.keys(others).length > 0) await engine.cases.update(actorOf(c), caseId, others);
      const [result] = await closeUnderPolicy(engine, actorOf(c), await apiMaker(c, engine), { caseIds: [caseId] }, { disposition, note });
      if (result && !result.ok) throw result.error === 'not_found' ? new NotFoundError(result.message) : new ConflictError(result.message);
      if (result && isWaiting(result)) return pending(c, await engine.approvals.get(businessId, result.requestId));
    }
    const updated = await engine.cases.update(actorOf(c), caseId, changes);
    return c.json({ message: 'Case updated', data: updated }, 200);
  });
  app.openapi(addComment, async (c) => {
    const updated = await engine.cases.addComment(actorOf(c), c.req.valid('param').id, c.req.valid('json'));
    return c.json({ message: 'Comment added', data: updated }, 201);
  });
  app.openapi(addTask, async (c) => {
    const updated = await engine.cases.addTask(actorOf(c), c.req.valid('param').id, c.req.valid('json').text);
    return c.json({ message: 'Task added', data: updated }, 201);
  });
  app.openapi(setTaskStatus, async (c) => {
    const { id, taskId } = c.req.valid('param');
    const updated = await engine.cases.setTaskStatus(actorOf(c), id, taskId, c.req.valid('json').status);
    return c.json({ message: 'Task updated', data: updated }, 200);
  });
  app.openapi(addAttachment, async (c) => {
    const updated = await engine.cases.addAttachment(actorOf(c), c.req.valid('param').id, c.req.valid('json').key);
    return c.json({ message: 'Attachment added', data: updated }, 201);
  });
}
