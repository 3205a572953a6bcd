import { createRoute, z } from '@hono/zod-openapi';
import type { Engine } from '../../engine.js';
import type { App } from '../env.js';
import { pagingQuery } from '../paging.js';
import { errorResponses, jsonBody, jsonResponse, security } from '../schemas.js';

const tags = ['Webhooks'];
const NotFound = jsonResponse(z.object({ error: z.number(), message: z.string() }), 'Delivery not found');

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

const setEndpoint = createRoute({
  method: 'put',
  path: '/api/v1/webhooks',
  tags,
  summary: "Set the business's default webhook URL (results of checks submitted without callbackUrl go there)",
  security,
  request: {
    body: jsonBody(z.object({ url: z.string().openapi({ example: 'https://example.com/hooks' }) }), { url: 'https://example.com/hooks' }),
  },
  responses: { 200: jsonResponse(z.object({ message: z.string(), data: Endpoint }), 'Saved'), ...errorResponses },
});

const getEndpoint = createRoute({
  method: 'get',
  path: '/api/v1/webhooks',
  tags,
  summary: "The business's default webhook URL (null when none is set)",
  security,
  responses: { 200: jsonResponse(z.object({ message: z.string(), data: Endpoint }), 'Endpoint'), ...errorResponses },
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
  responses: { 200: jsonResponse(z.object({ message: z.string(), data: Delivery }), 'Delivery'), ...errorResponses, 404: NotFound },
});

const retryDelivery = createRoute({
  method: 'post',
  path: '/api/v1/webhooks/deliveries/{id}/retry',
  tags,
  summary: 'Send a delivery again now, with the same webhook-id',
  security,
  request: { params: z.object({ id: z.string() }) },
  responses: {
    202: jsonResponse(z.object({ message: z.string(), data: Delivery }), 'Queued'),
    ...errorResponses,
    404: NotFound,
    409: jsonResponse(z.object({ error: z.number(), message: z.string() }), 'The delivery is being attempted right now'),
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
