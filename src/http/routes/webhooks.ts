import { createRoute, z } from '@hono/zod-openapi';
import type { Engine } from '../../engine.js';
import type { App } from '../env.js';
import { pagingQuery } from '../paging.js';
import { errorResponse, errorResponses, jsonBody, jsonResponse, security } from '../schemas.js';

const tags = ['Webhooks'];
const NotFound = errorResponse(404, 'Delivery not found', 'Delivery not found');

const Endpoint = z.object({ url: z.string().nullable(), updatedAt: z.string().nullable() }).openapi('WebhookEndpoint');
const Attempt = z.object({
  attempt: z.number(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  outcome: z.enum(['delivered', 'retry', 'gave_up']).nullable(),
  statusCode: z.number().nullable(),
  error: z.string().nullable(),
  durationMs: z.number().nullable(),
});
const Delivery = z
  .object({
    id: z.string(),
    webhookId: z.string(),
    url: z.string(),
    eventType: z.string(),
    subject: z.string(),
    status: z.enum(['pending', 'delivering', 'delivered', 'failed']),
    attempts: z.number(),
    nextAttemptAt: z.string().nullable(),
    lastStatusCode: z.number().nullable(),
    lastError: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    attemptLog: z.array(Attempt),
  })
  .openapi('WebhookDelivery');

const endpointExample = { url: 'https://hooks.example.com/compliance', updatedAt: '2026-11-27T15:38:31.020Z' };
const deliveryExample: z.input<typeof Delivery> = {
  id: '6b09a3f94bce41b57825bca1',
  webhookId: 'msg_6b09a3f94bce41b57825bca1',
  url: 'https://hooks.example.com/compliance',
  eventType: 'screening.sanction.completed',
  subject: '6b09a3f94bce41b57825bca0',
  status: 'delivered',
  attempts: 2,
  nextAttemptAt: null,
  lastStatusCode: 200,
  lastError: null,
  createdAt: '2026-11-27T15:38:33.101Z',
  updatedAt: '2026-11-27T15:38:38.412Z',
  attemptLog: [
    {
      attempt: 1,
      startedAt: '2026-11-27T15:38:33.140Z',
      finishedAt: '2026-11-27T15:38:33.391Z',
      outcome: 'retry',
      statusCode: 503,
      error: 'the receiver answered 503',
      durationMs: 251,
    },
    {
      attempt: 2,
      startedAt: '2026-11-27T15:38:38.210Z',
      finishedAt: '2026-11-27T15:38:38.412Z',
      outcome: 'delivered',
      statusCode: 200,
      error: null,
      durationMs: 202,
    },
  ],
};

const setEndpoint = createRoute({
  method: 'put',
  path: '/api/v1/webhooks',
  tags,
  summary: "Set the business's default webhook URL (results of checks submitted without callbackUrl go there)",
  security,
  request: {
    body: jsonBody(z.object({ url: z.string().openapi({ example: 'https://example.com/hooks' }) }), { url: 'https://example.com/hooks' }),
  },
  responses: {
    200: jsonResponse(z.object({ message: z.string(), data: Endpoint }), 'Saved', { message: 'Webhook URL saved', data: endpointExample }),
    ...errorResponses,
  },
});

const getEndpoint = createRoute({
  method: 'get',
  path: '/api/v1/webhooks',
  tags,
  summary: "The business's default webhook URL (null when none is set)",
  security,
  responses: {
    200: jsonResponse(z.object({ message: z.string(), data: Endpoint }), 'Endpoint', {
      message: 'Webhook URL fetched',
      data: endpointExample,
    }),
    ...errorResponses,
  },
});

const listDeliveries = createRoute({
  method: 'get',
  path: '/api/v1/webhooks/deliveries',
  tags,
  summary: 'Webhook deliveries and their attempts, newest first',
  security,
  request: { query: pagingQuery.extend({ status: z.enum(['pending', 'delivering', 'delivered', 'failed']).optional() }) },
  responses: {
    200: jsonResponse(
      z.object({
        message: z.string(),
        data: z.object({ deliveries: z.array(Delivery), total: z.number(), page: z.number(), limit: z.number() }),
      }),
      'Deliveries',
      { message: 'Deliveries fetched', data: { deliveries: [deliveryExample], total: 1, page: 1, limit: 20 } },
    ),
    ...errorResponses,
  },
});

const getDelivery = createRoute({
  method: 'get',
  path: '/api/v1/webhooks/deliveries/{id}',
  tags,
  summary: 'One delivery and its attempts',
  security,
  request: { params: z.object({ id: z.string() }) },
  responses: {
    200: jsonResponse(z.object({ message: z.string(), data: Delivery }), 'Delivery', {
      message: 'Delivery fetched',
      data: deliveryExample,
    }),
    ...errorResponses,
    404: NotFound,
  },
});

const retryDelivery = createRoute({
  method: 'post',
  path: '/api/v1/webhooks/deliveries/{id}/retry',
  tags,
  summary: 'Send a delivery again now, with the same webhook-id',
  security,
  request: { params: z.object({ id: z.string() }) },
  responses: {
    202: jsonResponse(z.object({ message: z.string(), data: Delivery }), 'Queued', {
      message: 'Delivery queued',
      data: { ...deliveryExample, status: 'pending', nextAttemptAt: '2026-11-27T15:40:02.000Z' },
    }),
    ...errorResponses,
    404: NotFound,
    409: errorResponse(409, 'The delivery is being attempted right now', 'delivery is not due or is being delivered'),
  },
});

export function registerWebhookRoutes(app: App, engine: Engine): void {
  app.openapi(setEndpoint, async (c) => {
    const p = c.get('principal');
    const data = await engine.webhooks.setEndpoint(
      { businessId: p.businessId, userId: p.userId, requestId: c.get('requestId') },
      c.req.valid('json').url,
    );
    return c.json({ message: 'Webhook URL saved', data }, 200);
  });
  app.openapi(getEndpoint, async (c) => {
    return c.json({ message: 'Webhook URL fetched', data: await engine.webhooks.endpoint(c.get('principal').businessId) }, 200);
  });
  app.openapi(listDeliveries, async (c) => {
    const query = c.req.valid('query');
    const { deliveries, total } = await engine.webhooks.list(c.get('principal').businessId, query);
    return c.json({ message: 'Deliveries fetched', data: { deliveries, total, page: query.page, limit: query.limit } }, 200);
  });
  app.openapi(getDelivery, async (c) => {
    return c.json(
      { message: 'Delivery fetched', data: await engine.webhooks.get(c.get('principal').businessId, c.req.valid('param').id) },
      200,
    );
  });
  app.openapi(retryDelivery, async (c) => {
    const p = c.get('principal');
    const data = await engine.webhooks.redeliver(
      { businessId: p.businessId, userId: p.userId, requestId: c.get('requestId') },
      c.req.valid('param').id,
    );
    return c.json({ message: 'Delivery queued', data }, 202);
  });
}
