import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { ApprovalRow, Party } from '../../approvals/index.js';
import { keyActorId, keyActorName } from '../../auth/index.js';
import type { Engine } from '../../engine.js';
import type { App, AppEnv } from '../env.js';
import { errorResponse, errorResponses, jsonResponse, security } from '../schemas.js';

const tags = ['Approvals'];
const BASE = '/api/v1/approvals';

const Approval = z
  .object({
    requestId: z.string(),
    action: z.string().openapi({
      description: 'case.close, screening.review, list.add, list.remove, apikey.create, apikey.revoke, ruleset.publish, policy.change',
    }),
    summary: z.string(),
    status: z.enum(['pending', 'approved', 'rejected', 'failed']),
    maker: z.string().openapi({ description: 'Who asked: a person, or `API key NAME` for a key bound to no user' }),
    reason: z.string(),
    requestedAt: z.string(),
    checker: z.string().nullable(),
    decisionReason: z.string().nullable(),
    decidedAt: z.string().nullable(),
    error: z.string().nullable(),
  })
  .openapi('ApprovalRequest');

const EXAMPLE = {
  requestId: '01JDAPPROVAL0000000000000',
  action: 'list.add',
  summary: 'Add 1234567890 to the account blacklist',
  status: 'pending' as const,
  maker: 'API key payments switch',
  reason: '',
  requestedAt: '2026-11-28T10:00:00.000Z',
  checker: null,
  decisionReason: null,
  decidedAt: null,
  error: null,
};

const view = (r: ApprovalRow): z.infer<typeof Approval> => ({
  requestId: r.request_id,
  action: r.action,
  summary: r.summary,
  status: r.status as z.infer<typeof Approval>['status'],
  maker: r.maker_name,
  reason: r.reason,
  requestedAt: r.requested_at,
  checker: r.checker_name,
  decisionReason: r.decision_reason,
  decidedAt: r.decided_at,
  error: r.error,
});

/** The answer of a change the business's policy puts under four eyes: recorded, not done. */
export const pendingResponse = jsonResponse(
  z.object({ message: z.string(), data: Approval }),
  'Recorded as a request: it takes effect when a second person approves it in the console (GET /api/v1/approvals/{id} follows it)',
  { message: 'Waiting for a second person: Add 1234567890 to the account blacklist', data: EXAMPLE },
);

export const pending = (c: Context<AppEnv>, row: ApprovalRow) =>
  c.json({ message: `Waiting for a second person: ${row.summary}`, data: view(row) }, 202);

/**
 * The maker of a request made through the API. A key bound to a user acts as that user (who then cannot approve
 * it in the console either); a key bound to no user is a machine, and the request names the key.
 */
export const apiMaker = async (c: Context<AppEnv>, engine: Engine): Promise<Party> => {
  const p = c.get('principal');
  const user = p.userId ? await engine.users.ref(p.businessId, p.userId) : undefined;
  if (user) return { kind: 'user', id: user._id, name: `${user.firstName} ${user.lastName}`.trim() };
  return { kind: 'api-key', id: keyActorId(p.apiKey), name: keyActorName(p.keyName) };
};

const listRoute = createRoute({
  method: 'get',
  path: BASE,
  tags,
  summary: 'Four-eyes requests of the business, newest first (approving and rejecting is done by people, in the console)',
  security,
  request: { query: z.object({ status: z.enum(['pending', 'decided']).optional() }) },
  responses: {
    200: jsonResponse(z.object({ message: z.string(), data: z.array(Approval) }), 'Requests', {
      message: 'Approval requests fetched',
      data: [EXAMPLE],
    }),
    ...errorResponses,
  },
});

const getRoute = createRoute({
  method: 'get',
  path: `${BASE}/{id}`,
  tags,
  summary: 'One four-eyes request and where it stands',
  security,
  request: { params: z.object({ id: z.string().min(1).max(100) }) },
  responses: {
    200: jsonResponse(z.object({ message: z.string(), data: Approval }), 'Request', { message: 'Approval request fetched', data: EXAMPLE }),
    ...errorResponses,
    404: errorResponse(404, 'No such request', 'Approval request not found'),
  },
});

export function registerApprovalRoutes(app: App, engine: Engine): void {
  app.openapi(listRoute, async (c) => {
    const status = c.req.valid('query').status;
    const rows = await engine.approvals.list(c.get('principal').businessId, status ? { pending: status === 'pending' } : {});
    return c.json({ message: 'Approval requests fetched', data: rows.map(view) }, 200);
  });
  app.openapi(getRoute, async (c) => {
    const row = await engine.approvals.get(c.get('principal').businessId, c.req.valid('param').id);
    return c.json({ message: 'Approval request fetched', data: view(row) }, 200);
  });
}
