import { createRoute, z } from '@hono/zod-openapi';
import type { Engine } from '../../engine.js';
import { EVENT_TYPES } from '../../webhooks/events.js';
import type { App, AppEnv } from '../env.js';
import type { Context } from 'hono';
import { errorResponse, errorResponses, jsonBody, jsonResponse, messageResponse, security } from '../schemas.js';

const tags = ['Webhooks'];
const NotFound = errorResponse(404, 'Webhook endpoint not found', 'Webhook endpoint not found');
const path = '/api/v1/webhooks/endpoints';
const params = z.object({ id: z.string().openapi({ example: 'ep_01JD7Y3C1D8Q2V5X9K4M6N8P0R' }) });

const EventTypes = z
  .array(z.enum(EVENT_TYPES))
  .min(1)
  .openapi({
    description: 'The event types sent to this endpoint (see the `webhooks` section)',
    example: ['decision.flagged', 'case.created'],
  });
const Endpoint = z
  .object({
    id: z.string(),
    url: z.string(),
    eventTypes: z.array(z.enum(EVENT_TYPES)),
    description: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('SubscribedWebhookEndpoint');
const example = {
  id: 'ep_01JD7Y3C1D8Q2V5X9K4M6N8P0R',
  url: 'https://example.com/hooks/compliance',
  eventTypes: ['decision.flagged', 'case.created'] as ('decision.flagged' | 'case.created')[],
  description: '',
  createdAt: '2026-01-01T10:15:00.000Z',
  updatedAt: '2026-01-01T10:15:00.000Z',
};
const data = (schema: z.ZodType, description: string, message: string, value: unknown) =>
  jsonResponse(z.object({ message: z.string(), data: schema }), description, { message, data: value });
const input = {
  url: z.string().openapi({ example: 'https://example.com/hooks/compliance' }),
  eventTypes: EventTypes,
  description: z.string().max(500).optional(),
};

const createEndpoint = createRoute({
  method: 'post',
  path,
  tags,
  summary: 'Subscribe an endpoint to event types; the answer holds its signing secret, shown this once',
  security,
  request: {
    body: jsonBody(z.object(input), { url: 'https://example.com/hooks/compliance', eventTypes: ['decision.flagged', 'case.created'] }),
  },
  responses: {
    201: data(Endpoint.extend({ secret: z.string() }), 'Created', 'Webhook endpoint created', { ...example, secret: 'whsec_…' }),
    ...errorResponses,
    409: messageResponse(
      'The business has as many endpoints as allowed',
      'a business can have at most 20 webhook endpoints; delete one first',
    ),
  },
});

const listEndpoints = createRoute({
  method: 'get',
  path,
  tags,
  summary: "The business's subscribed endpoints (without their secrets)",
  security,
  responses: { 200: data(z.array(Endpoint), 'Endpoints', 'Webhook endpoints fetched', [example]), ...errorResponses },
});

const getEndpoint = createRoute({
  method: 'get',
  path: `${path}/{id}`,
  tags,
  summary: 'One subscribed endpoint',
  security,
  request: { params },
  responses: { 200: data(Endpoint, 'Endpoint', 'Webhook endpoint fetched', example), ...errorResponses, 404: NotFound },
});

const updateEndpoint = createRoute({
  method: 'patch',
  path: `${path}/{id}`,
  tags,
  summary: "Change an endpoint's URL, event types or description (what is left out stays)",
  security,
  request: { params, body: jsonBody(z.object(input).partial(), { eventTypes: ['decision.created'] }) },
  responses: { 200: data(Endpoint, 'Updated', 'Webhook endpoint updated', example), ...errorResponses, 404: NotFound },
});

const deleteEndpoint = createRoute({
  method: 'delete',
  path: `${path}/{id}`,
  tags,
  summary: 'Delete an endpoint: nothing more is sent to it, and its pending deliveries are given up',
  security,
  request: { params },
  responses: { 200: messageResponse('Deleted', 'Webhook endpoint deleted'), ...errorResponses, 404: NotFound },
});

const rotateSecret = createRoute({
  method: 'post',
  path: `${path}/{id}/rotate-secret`,
  tags,
  summary: "A new signing secret for the endpoint; deliveries carry the old one's signature too for 24 hours",
  security,
  request: { params },
  responses: {
    200: data(z.object({ secret: z.string(), previousValidUntil: z.string() }), 'Rotated', 'Webhook secret rotated', {
      secret: 'whsec_…',
      previousValidUntil: '2026-01-02T10:15:00.000Z',
    }),
    ...errorResponses,
    404: NotFound,
  },
});

const actor = (c: Context<AppEnv>) => {
  const p = c.get('principal');
  return { businessId: p.businessId, userId: p.userId, requestId: c.get('requestId') };
};

/** Subscribed endpoints under /api/v1/webhooks/endpoints, beside the business's default URL at /api/v1/webhooks. */
export function registerWebhookEndpointRoutes(app: App, engine: Engine): void {
  const endpoints = engine.webhooks.endpoints;
  app.openapi(createEndpoint, async (c) => {
    return c.json({ message: 'Webhook endpoint created', data: await endpoints.create(actor(c), c.req.valid('json')) }, 201);
  });
  app.openapi(listEndpoints, async (c) => {
    return c.json({ message: 'Webhook endpoints fetched', data: await endpoints.list(c.get('principal').businessId) }, 200);
  });
  app.openapi(getEndpoint, async (c) => {
    return c.json(
      { message: 'Webhook endpoint fetched', data: await endpoints.get(c.get('principal').businessId, c.req.valid('param').id) },
      200,
    );
  });
  app.openapi(updateEndpoint, async (c) => {
    const data = await endpoints.update(actor(c), c.req.valid('param').id, c.req.valid('json'));
    return c.json({ message: 'Webhook endpoint updated', data }, 200);
  });
  app.openapi(deleteEndpoint, async (c) => {
    await endpoints.delete(actor(c), c.req.valid('param').id);
    return c.json({ message: 'Webhook endpoint deleted' }, 200);
  });
  app.openapi(rotateSecret, async (c) => {
    return c.json({ message: 'Webhook secret rotated', data: await endpoints.rotateSecret(actor(c), c.req.valid('param').id) }, 200);
  });
}
