import { createRoute, z } from '@hono/zod-openapi';
import type { Engine } from '../../engine.js';
import { EVENT_TYPES } from '../../webhooks/events.js';
import type { App, AppEnv } from '../env.js';
import type { Context } from 'hono';
import { errorResponses, jsonBody, jsonResponse, MessageResponse, security } from '../schemas.js';

const tags = ['Webhooks'];
const NotFound = jsonResponse(z.object({ error: z.number(), message: z.string() }), 'Webhook endpoint not found');
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
const data = (schema: z.ZodType, description: string) => jsonResponse(z.object({ message: z.string(), data: schema }), description);
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
    201: data(Endpoint.extend({ secret: z.string().openapi({ example: 'whsec_…' }) }), 'Created'),
    ...errorResponses,
    409: jsonResponse(MessageResponse, 'The business has as many endpoints as allowed'),
  },
});

const listEndpoints = createRoute({
  method: 'get',
  path,
  tags,
  summary: "The business's subscribed endpoints (without their secrets)",
  security,
  responses: { 200: data(z.array(Endpoint), 'Endpoints'), ...errorResponses },
});

const getEndpoint = createRoute({
  method: 'get',
  path: `${path}/{id}`,
  tags,
  summary: 'One subscribed endpoint',
  security,
  request: { params },
  responses: { 200: data(Endpoint, 'Endpoint'), ...errorResponses, 404: NotFound },
});

const updateEndpoint = createRoute({
  method: 'patch',
  path: `${path}/{id}`,
  tags,
  summary: "Change an endpoint's URL, event types or description (what is left out stays)",
  security,
  request: { params, body: jsonBody(z.object(input).partial(), { eventTypes: ['decision.created'] }) },
  responses: { 200: data(Endpoint, 'Updated'), ...errorResponses, 404: NotFound },
});

const deleteEndpoint = createRoute({
  method: 'delete',
  path: `${path}/{id}`,
  tags,
  summary: 'Delete an endpoint: nothing more is sent to it, and its pending deliveries are given up',
  security,
  request: { params },
  responses: { 200: jsonResponse(MessageResponse, 'Deleted'), ...errorResponses, 404: NotFound },
});

const rotateSecret = createRoute({
  method: 'post',
  path: `${path}/{id}/rotate-secret`,
  tags,
  summary: "A new signing secret for the endpoint; deliveries carry the old one's signature too for 24 hours",
  security,
  request: { params },
  responses: {
    200: data(z.object({ secret: z.string(), previousValidUntil: z.string() }), 'Rotated'),
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
