import { createRoute, z } from '@hono/zod-openapi';
import {
  CorporatePatchSchema,
  CustomerInputSchema,
  customerReadShape,
  IndividualPatchSchema,
  MATCH_KINDS,
  type MatchKind,
} from '../../cdd/index.js';
import type { Principal } from '../../auth/index.js';
import type { CddActor } from '../../cdd/index.js';
import type { Engine } from '../../engine.js';
import { NotFoundError, ValidationError } from '../../errors.js';
import type { App } from '../env.js';
import { proofResponse } from './audit.js';
import { pagingQuery } from '../paging.js';
import { errorResponse, errorResponses, jsonBody, jsonResponse, security } from '../schemas.js';
import {
  customerExample,
  customerReadExample,
  matchesExample,
  requestsExample,
  schedulesExample,
  workflowsExample,
} from './cdd-examples.js';
import { validationErrorFrom } from '../../validation-messages.js';

const tags = ['Customer due diligence'];
const Any = z.record(z.string(), z.unknown());
const ok = <T extends z.ZodType>(data: T, description: string, example: { message: string; data: z.input<T> }) =>
  jsonResponse(z.object({ message: z.string(), data }), description, example);
const notFound = {
  404: errorResponse(404, 'Unknown customer, workflow or request (the message names which)', 'Customer cust-0002 not found'),
};
const conflict = {
  409: errorResponse(
    409,
    'Duplicate uniqueId or account number, or a match already reviewed with the same status',
    'A customer with uniqueId cust-0001 already exists',
  ),
};
const CustomerParams = z.object({
  uniqueId: z.string().min(1).openapi({ description: "The customer's uniqueId or one of its account numbers" }),
});
const RequestParams = z.object({ id: z.string().min(1).openapi({ description: 'CDD request id' }) });

const createCustomer = createRoute({
  method: 'post',
  path: '/api/v1/cdd/customers',
  tags,
  summary: 'Create an individual or corporate customer (chosen by type)',
  security,
  request: {
    body: jsonBody(CustomerInputSchema, {
      type: 'individual',
      uniqueId: 'cust-0001',
      firstName: 'Ada',
      lastName: 'Obi',
      email: 'ada.obi@example.com',
    } as z.input<typeof CustomerInputSchema>),
  },
  responses: {
    201: ok(Any, 'Created: the customer as read', { message: 'Customer created', data: customerExample }),
    ...errorResponses,
    ...conflict,
  },
});

const getCustomer = createRoute({
  method: 'get',
  path: '/api/v1/cdd/customers/{uniqueId}',
  tags,
  summary: 'Fetch a customer by uniqueId or account number, with risk summary, checks and (corporate) persons',
  security,
  request: { params: CustomerParams },
  responses: {
    200: jsonResponse(z.object({ success: z.literal(true), data: Any }), 'The customer', { success: true, data: customerReadExample }),
    404: jsonResponse(z.object({ success: z.literal(false), message: z.string() }), 'Customer not found', {
      success: false,
      message: 'Customer cust-0002 not found',
    }),
    ...errorResponses,
  },
});

const updateCustomer = createRoute({
  method: 'patch',
  path: '/api/v1/cdd/customers/{uniqueId}',
  tags,
  summary: 'Change fields of a customer (not type or uniqueId); its risk is reassessed',
  security,
  request: {
    params: CustomerParams,
    body: jsonBody(
      Any,
      { email: 'ada.obi@example.org', phone: '+2348012345678' },
      'Any creation field of the customer type; arrays replace the stored ones',
    ),
  },
  responses: {
    200: ok(Any, 'The customer as read', { message: 'Customer updated', data: customerExample }),
    ...errorResponses,
    ...notFound,
    ...conflict,
  },
});

const listWorkflows = createRoute({
  method: 'get',
  path: '/api/v1/cdd/workflows',
  tags,
  summary: 'List the configured workflows (rules/workflows/*.json)',
  security,
  responses: { 200: ok(z.array(Any), 'Workflows', { message: 'Workflows fetched', data: workflowsExample }), ...errorResponses },
});

const startProcess = createRoute({
  method: 'post',
  path: '/api/v1/cdd/process',
  tags,
  summary: 'Start a CDD workflow for a customer; the checks run in the background',
  security,
  request: {
    body: jsonBody(z.strictObject({ customerUniqueId: z.string().trim().min(1), workflowSlug: z.string().trim().min(1) }), {
      customerUniqueId: 'cust-0001',
      workflowSlug: 'individual-standard',
    }),
  },
  responses: {
    200: ok(z.object({ requestId: z.string(), status: z.literal('not started'), type: z.enum(['individual', 'corporate']) }), 'Queued', {
      message: 'CDD process started',
      data: { requestId: '6b09a3ff156c000b39c241e4', status: 'not started', type: 'individual' },
    }),
    ...errorResponses,
    ...notFound,
  },
});

const listRequests = createRoute({
  method: 'get',
  path: '/api/v1/cdd-request/customers/{uniqueId}',
  tags,
  summary: "List a customer's CDD requests, newest first (count is the customer's total)",
  security,
  request: { params: CustomerParams, query: pagingQuery },
  responses: {
    200: jsonResponse(
      z.object({ message: z.string(), count: z.number().int(), pageNumber: z.number().int(), data: z.array(Any) }),
      'Requests',
      { message: 'CDD requests fetched', count: 1, pageNumber: 1, data: requestsExample },
    ),
    ...errorResponses,
    ...notFound,
  },
});

const KeysQuery = z.object({
  keys: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .openapi({
      description:
        'Screening keys to include, comma-separated or repeated (keys=pep&keys=sanctions): pep, sanctions, adverseMedia (default all three)',
      example: 'pep,sanctions',
    }),
});

const getMatches = createRoute({
  method: 'get',
  path: '/api/v1/cdd-request/{id}/matches',
  tags,
  summary: "A request's screening matches, addressed by position, each with its reviewStatus",
  security,
  request: { params: RequestParams, query: KeysQuery },
  responses: { 200: ok(Any, 'Matches', { message: 'Matches fetched', data: matchesExample }), ...errorResponses, ...notFound },
});

const reviewMatch = createRoute({
  method: 'put',
  path: '/api/v1/cdd-request/{id}/matches',
  tags,
  summary:
    'Record a reviewer decision on one match, with an optional note; found confirms it on the customer and opens a case. ' +
    'A new status with a note corrects an earlier review (a correction from found withdraws the confirmation); the history is kept',
  security,
  request: {
    params: RequestParams,
    body: jsonBody(
      z.strictObject({
        type: z.enum(['pep', 'sanctions', 'adverseMedia']),
        status: z.enum(['found', 'not found']),
        index: z.number().int().min(0),
        note: z.string().trim().max(5000).optional().openapi({
          description: "The reviewer's rationale; required when the status corrects an earlier review of the match",
        }),
      }),
      { type: 'pep', status: 'not found', index: 0 },
    ),
  },
  responses: {
    200: ok(z.object({ _id: z.string(), type: z.string() }), 'Recorded', {
      message: 'Match review recorded',
      data: { _id: '6b09a3ff156c000b39c241e4', type: 'individual' },
    }),
    ...errorResponses,
    ...notFound,
    ...conflict,
  },
});

const reviewProof = createRoute({
  method: 'get',
  path: '/api/v1/cdd-request/{id}/matches/proof',
  tags,
  summary: "A match review's event as stored, with an inclusion proof against the latest signed tree head",
  security,
  request: {
    params: RequestParams,
    query: z.object({
      type: z.enum(['pep', 'sanctions', 'adverseMedia']),
      index: z.coerce.number().int().min(0),
      review: z.coerce
        .number()
        .int()
        .min(0)
        .optional()
        .openapi({ description: 'Which review in the history (0 = first); default the latest' }),
    }),
  },
  responses: {
    ...proofResponse('The review', {
      streamId: 'cdd-request/6b09a3ff156c000b39c241e4',
      type: 'CddMatchReviewed',
      schemaVersion: 1,
      data: {
        requestId: '6b09a3ff156c000b39c241e4',
        kind: 'pep',
        index: 0,
        status: 'not found',
        reviewedBy: 'apikey:ck_Bw6q9DXDDu7VZBgZID5BkIPt',
        reviewedAt: '2026-11-27T15:41:02.118Z',
        reviewerName: 'API key acme',
        note: 'Same name, different date of birth (1988 against 1952)',
        previousStatus: null,
      },
    }),
    ...errorResponses,
    ...notFound,
    409: errorResponse(409, 'The log was altered', 'the event at position 31 is not the one the signed tree holds: the log was altered'),
  },
});

const listSchedules = createRoute({
  method: 'get',
  path: '/api/v1/cdd/requests/schedules',
  tags,
  summary: 'List scheduled workflows (ongoing monitoring); count is the page size, totalCount all of them',
  security,
  request: { query: pagingQuery },
  responses: {
    200: jsonResponse(
      z.object({
        message: z.string(),
        data: z.array(Any),
        count: z.number().int(),
        pageNumber: z.number().int(),
        totalCount: z.number().int(),
      }),
      'Schedules',
      { message: 'Scheduled workflows fetched', data: schedulesExample, count: 1, pageNumber: 1, totalCount: 1 },
    ),
    ...errorResponses,
  },
});

/**
 * A PATCH may send back the customer's type and uniqueId unchanged, as a client that edits what it read does; a
 * different value is refused by name, since they identify the customer.
 */
function withoutIdentity(body: Record<string, unknown>, doc: { type: string; uniqueId: string }): Record<string, unknown> {
  const { type, uniqueId, ...changes } = body;
  for (const [field, sent, held] of [
    ['type', type, doc.type],
    ['uniqueId', uniqueId, doc.uniqueId],
  ] as const) {
    if (sent !== undefined && sent !== held)
      throw new ValidationError(`${field} cannot change: it identifies the customer (${held})`, field);
  }
  return changes;
}

function parseKeys(given: string | string[] | undefined): MatchKind[] {
  const keys = Array.isArray(given) ? given.join(',') : given;
  if (keys === undefined || keys.trim() === '') return [...MATCH_KINDS];
  const wanted = keys.split(',').map((k) => k.trim());
  const bad = wanted.find((k) => !(MATCH_KINDS as readonly string[]).includes(k));
  if (bad !== undefined)
    throw new ValidationError(`keys must be a comma-separated list of: ${MATCH_KINDS.join(', ')} (got ${bad || 'an empty key'})`, 'keys');
  return wanted as MatchKind[];
}

export function registerCddRoutes(app: App, engine: Engine): void {
  // The interface answers an unknown customer on this fetch as {success: false, message}.
  app.use('/api/v1/cdd/customers/:uniqueId', async (c, next) => {
    if (c.req.method === 'GET') c.set('errorStyle', 'success');
    await next();
  });
  const actor = (c: { get(k: 'principal'): Principal; get(k: 'requestId'): string }): CddActor => {
    const p = c.get('principal');
    return { businessId: p.businessId, userId: p.userId, apiKey: p.apiKey, keyName: p.keyName, requestId: c.get('requestId') };
  };

  app.openapi(createCustomer, async (c) => {
    const view = await engine.cdd.customers.create(actor(c), c.req.valid('json'));
    return c.json({ message: 'Customer created', data: customerReadShape(view).customer }, 201);
  });
  app.openapi(getCustomer, async (c) => {
    const view = await engine.cdd.customers.get(c.get('principal').businessId, c.req.valid('param').uniqueId);
    return c.json({ success: true as const, data: customerReadShape(view) }, 200);
  });
  app.openapi(updateCustomer, async (c) => {
    const { uniqueId } = c.req.valid('param');
    const body = c.req.valid('json');
    const current = await engine.cdd.customers.get(c.get('principal').businessId, uniqueId);
    const parsed = (current.doc.type === 'corporate' ? CorporatePatchSchema : IndividualPatchSchema).safeParse(
      withoutIdentity(body, current.doc),
    );
    if (!parsed.success) throw validationErrorFrom(parsed.error, body);
    const view = await engine.cdd.customers.update(actor(c), current.doc.uniqueId, parsed.data);
    return c.json({ message: 'Customer updated', data: customerReadShape(view).customer }, 200);
  });
  app.openapi(listWorkflows, (c) => c.json({ message: 'Workflows fetched', data: [...engine.cdd.workflows.values()] }, 200));
  app.openapi(startProcess, async (c) => {
    const data = await engine.cdd.requests.start(actor(c), c.req.valid('json'));
    return c.json({ message: 'CDD process started', data }, 200);
  });
  app.openapi(listRequests, async (c) => {
    const result = await engine.cdd.requests.list(c.get('principal').businessId, c.req.valid('param').uniqueId, c.req.valid('query'));
    return c.json({ message: 'CDD requests fetched', ...result }, 200);
  });
  app.openapi(getMatches, async (c) => {
    const data = await engine.cdd.requests.matches(
      c.get('principal').businessId,
      c.req.valid('param').id,
      parseKeys(c.req.valid('query').keys),
    );
    return c.json({ message: 'Matches fetched', data }, 200);
  });
  app.openapi(reviewMatch, async (c) => {
    const data = await engine.cdd.requests.review(actor(c), c.req.valid('param').id, c.req.valid('json'));
    return c.json({ message: 'Match review recorded', data }, 200);
  });
  app.openapi(reviewProof, async (c) => {
    const { type, index, review } = c.req.valid('query');
    const positions = await engine.cdd.requests.reviewPositions(c.get('principal').businessId, c.req.valid('param').id, type, index);
    const position = review === undefined ? positions.at(-1) : positions[review];
    if (position === undefined) {
      throw new NotFoundError(
        `${type} match ${index} has ${positions.length} review(s)${review === undefined ? '' : `; there is no review ${review}`}`,
      );
    }
    return c.json({ message: 'Proof fetched', data: await engine.audit.prove(position) }, 200);
  });
  app.openapi(listSchedules, async (c) => {
    const result = await engine.cdd.scheduler.list(c.get('principal').businessId, c.req.valid('query'));
    return c.json({ message: 'Scheduled workflows fetched', ...result }, 200);
  });
}
