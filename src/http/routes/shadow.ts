import { createRoute, z } from '@hono/zod-openapi';
import type { Engine } from '../../engine.js';
import { NotFoundError } from '../../errors.js';
import { publishRequest } from '../../monitoring/shadow/index.js';
import type { App } from '../env.js';
import { errorResponse, errorResponses, jsonBody, jsonResponse, security } from '../schemas.js';
import { apiMaker, pending, pendingResponse } from './approvals.js';

const tags = ['Transaction monitoring'];
const PATH = '/api/v1/transaction-monitoring/rules/shadow';
const Report = z.object({ message: z.string(), data: z.record(z.string(), z.unknown()) });
const example = {
  message: 'Shadow ruleset report',
  data: {
    shadow: {
      shadowId: '6b06a45b1c2d3e4f5a6b7c8d',
      candidateVersion: 'sha256:75c80e37a6949e4a',
      status: 'running',
      until: '2026-03-03T08:00:00.000Z',
    },
    window: { from: '2026-03-02T08:00:01.000Z', to: '2026-03-02T09:59:58.000Z' },
    decisions: 1200,
    changed: 14,
    transitions: { 'approved→review': 14 },
    ruleHits: { VEL_USER_10M: { deciding: 3, candidate: 17 } },
    hours: [{ hour: '2026-03-02T08', decisions: 610, changed: 6, hits: { VEL_USER_10M: { deciding: 1, candidate: 7 } } }],
    changes: { page: 1, limit: 20, total: 14, items: [] },
  },
};

const deploy = createRoute({
  method: 'post',
  path: PATH,
  tags,
  summary: "Deploy a candidate ruleset in shadow on the business's live decisions",
  description:
    'Every decision committed from now on is also evaluated by the candidate, after it is answered, against the features it recorded and the state the decisions before it built; the candidate never raises an alert, a case, a webhook or a list change. One shadow per business at a time; it stops by itself after `hours` (default 24, at most 336) or `maxDecisions` (default 1,000,000). Publishing it is asked for with POST …/rules/shadow/publish and done by an administrator.',
  security,
  request: {
    body: jsonBody(
      z.strictObject({
        files: z
          .record(z.string(), z.string())
          .openapi({ description: 'NAME.rules and lists/NAME.txt file contents by name: the whole candidate ruleset' }),
        hours: z.number().optional(),
        maxDecisions: z.number().int().optional(),
      }),
      {
        files: {
          'velocity.rules':
            'rule VEL_USER_10M "Burst"\n  when count(by user over 10 minutes) >= 3\n  score 30\n  reason VEL001 high "3 or more in 10 minutes"\nend\n',
          'decide.rules': 'decide\n  review at 30\n  otherwise approved\nend\n',
        },
        hours: 24,
      },
    ),
  },
  responses: {
    201: jsonResponse(Report, 'The shadow runs', { ...example, message: 'Shadow ruleset deployed' }),
    409: errorResponse(409, 'Another shadow runs', 'a shadow ruleset already runs for this business: stop it first'),
    ...errorResponses,
  },
});

const report = createRoute({
  method: 'get',
  path: PATH,
  tags,
  summary: "The business's running shadow ruleset (else its last): decisions it would change, hits per rule and hour",
  security,
  request: {
    query: z.object({
      shadowId: z.string().optional(),
      pair: z.string().optional().openapi({ description: 'Only the changed decisions of this pair, e.g. approved→review' }),
      page: z.coerce.number().int().min(1).default(1),
      limit: z.coerce.number().int().min(1).max(100).default(20),
    }),
  },
  responses: { 200: jsonResponse(Report, 'Its report, live', example), ...errorResponses },
});

const stop = createRoute({
  method: 'delete',
  path: PATH,
  tags,
  summary: "Stop the business's running shadow ruleset",
  security,
  responses: { 200: jsonResponse(Report, 'Its final report', { ...example, message: 'Shadow ruleset stopped' }), ...errorResponses },
});

const publish = createRoute({
  method: 'post',
  path: `${PATH}/publish`,
  tags,
  summary: "Ask to publish the business's running shadow ruleset: a request an administrator approves in the console",
  description:
    "Publishing makes the candidate the deciding ruleset of every business the server serves. An API key is neither a person nor an administrator, so from the API publishing is always a four-eyes request, whatever the business's policy: a signed-in administrator other than the key's user approves it in the console, and the candidate of that shadow is published then (refused if another shadow runs by then).",
  security,
  request: {
    body: jsonBody(z.strictObject({ reason: z.string().max(2000).optional() }), {
      reason: '2 days in shadow: 14 changes, all confirmed mules',
    }),
  },
  responses: {
    202: pendingResponse,
    404: errorResponse(404, 'No shadow runs', 'No shadow ruleset runs for this business'),
    ...errorResponses,
  },
});

export function registerShadowRoutes(app: App, engine: Engine): void {
  const actor = (c: { get(k: 'principal'): { businessId: string; userId?: string } }) => {
    const p = c.get('principal');
    return { businessId: p.businessId, userId: p.userId };
  };
  app.openapi(deploy, async (c) => {
    const data = await engine.shadows.deploy(actor(c), c.req.valid('json'));
    return c.json({ message: 'Shadow ruleset deployed', data: data as unknown as Record<string, unknown> }, 201);
  });
  app.openapi(report, async (c) => {
    const data = await engine.shadows.report(c.get('principal').businessId, c.req.valid('query'));
    return c.json({ message: 'Shadow ruleset report', data: data as unknown as Record<string, unknown> }, 200);
  });
  app.openapi(publish, async (c) => {
    const businessId = c.get('principal').businessId;
    const run = await engine.shadows.report(businessId).catch(() => undefined);
    if (run?.shadow.status !== 'running') throw new NotFoundError('No shadow ruleset runs for this business');
    const row = await engine.approvals.request(
      businessId,
      await apiMaker(c, engine),
      publishRequest(run, c.req.valid('json').reason ?? ''),
    );
    return pending(c, row);
  });
  app.openapi(stop, async (c) => {
    const data = await engine.shadows.stop(actor(c));
    return c.json({ message: 'Shadow ruleset stopped', data: data as unknown as Record<string, unknown> }, 200);
  });
}
