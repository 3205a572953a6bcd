import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Engine } from '../../engine.js';
import type { App, AppEnv } from '../env.js';
import { errorResponse, errorResponses, jsonBody, jsonResponse, security } from '../schemas.js';
import { checkExample, listsExample, pepRecordExample } from './screening-examples.js';

const tags = ['Screening'];
// A name, or a short phrase for adverse media: long enough for any listed name with its aliases' words, short
// enough that a search stays a matter of milliseconds.
const name = z.string().trim().min(1).max(300).openapi({ example: 'Vladimir Putin' });
const threshold = z
  .number()
  .int()
  .min(0)
  .max(100)
  .optional()
  .openapi({ description: 'Minimum confidenceScore, 0-100 (default 85)', example: 85 });
const limit = z
  .number()
  .int()
  .min(1)
  .max(100)
  .optional()
  .openapi({ description: 'Results per list (default 10, at most 100)', example: 10 });
const country = z
  .string()
  .refine((v) => /^[A-Za-z]{2}$/.test(v), 'must be a two-letter country code')
  .optional()
  .openapi({ example: 'NG' });
const callbackUrl = z.string().openapi({
  description: 'HTTPS URL that receives the result (Standard Webhooks signed)',
  example: 'https://example.com/hooks/screening',
});

const Record_ = z
  .record(z.string(), z.unknown())
  .openapi('ScreeningRecord', { description: 'A PEP or sanction record as in the interface spec, with listName and listVersion' });
const Pending = z
  .object({
    id: z.string(),
    query: z.string(),
    businessProfile: z.string(),
    status: z.literal('pending'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('PendingCheck');
const Check = z
  .object({
    id: z.string(),
    kind: z.enum(['risk-monitoring', 'adverse-media', 'sanction', 'screen']),
    status: z.enum(['pending', 'completed', 'failed']),
    query: z.string(),
    parameters: z.record(z.string(), z.unknown()),
    businessProfile: z.string(),
    callbackUrl: z.string().nullable(),
    callbackSource: z.enum(['callback', 'default']).nullable(),
    deliveryId: z.string().nullable(),
    listVersions: z.array(z.object({ name: z.string(), type: z.enum(['pep', 'sanction']), version: z.string() })),
    result: z.unknown().openapi({ description: 'The payload delivered to the webhook (null while pending)' }),
    error: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    completedAt: z.string().nullable(),
  })
  .openapi('ScreeningCheck');

const ack = <T extends z.ZodType>(schema: T, description: string, example: { message: string; data: z.input<T> }) => ({
  202: jsonResponse(z.object({ message: z.string(), data: schema }), description, example),
  ...errorResponses,
});

const pendingExample = (query: string): z.input<typeof Pending> => ({
  id: '6b09a3f94bce41b57825bca0',
  query,
  businessProfile: 'biz_6b09a3f760a92ed3bc904b74',
  status: 'pending',
  createdAt: '2026-11-27T15:38:33.375Z',
  updatedAt: '2026-11-27T15:38:33.375Z',
});

const riskMonitoring = createRoute({
  method: 'post',
  path: '/api/v1/aml/risk-monitoring',
  tags,
  summary: 'PEP, sanction and adverse-media screening in one call; the result goes to callbackUrl',
  security,
  request: {
    body: jsonBody(z.strictObject({ name, threshold, limit, callbackUrl }), {
      name: 'Michael Avenatti',
      threshold: 80,
      limit: 10,
      callbackUrl: 'https://example.com/hooks/screening',
    }),
  },
  responses: ack(z.object({ checkId: z.string() }), 'Accepted; the combined result is delivered to callbackUrl', {
    message: 'Risk monitoring check started',
    data: { checkId: '6b09a3f843673f9ee3378447' },
  }),
});

const adverseMedia = createRoute({
  method: 'post',
  path: '/api/v1/adverse-media',
  tags,
  summary: 'Adverse-media search; the result goes to callbackUrl, else to the default webhook',
  security,
  request: {
    body: jsonBody(z.strictObject({ q: name.openapi({ example: 'Michael Avenatti' }), limit, callbackUrl: callbackUrl.optional() }), {
      q: 'Michael Avenatti',
      limit: 10,
    }),
  },
  responses: ack(Pending, 'Accepted', { message: 'Adverse media search started', data: pendingExample('Michael Avenatti') }),
});

const sanction = createRoute({
  method: 'post',
  path: '/api/v1/aml/sanction',
  tags,
  summary: 'Sanctions search; the result goes to callbackUrl, else to the default webhook',
  security,
  request: {
    body: jsonBody(z.strictObject({ name, threshold, country, limit, callbackUrl: callbackUrl.optional() }), {
      name: 'Vladimir Putin',
      threshold: 85,
      country: 'RU',
      limit: 5,
    }),
  },
  responses: ack(Pending, 'Accepted', { message: 'Sanction search started', data: pendingExample('Vladimir Putin') }),
});

const screen = createRoute({
  method: 'post',
  path: '/api/v1/aml/screen',
  tags,
  summary: 'Synchronous PEP and sanction screening',
  security,
  request: {
    body: jsonBody(
      z.strictObject({
        name,
        threshold,
        limit,
        lists: z.array(z.string().max(200)).max(100).optional().openapi({ description: 'Only these list names (at most 100)' }),
        country,
        birthDate: z
          .string()
          .regex(/^\d{4}(-\d{2}(-\d{2})?)?$/, 'must be YYYY, YYYY-MM or YYYY-MM-DD')
          .optional(),
        gender: z.enum(['male', 'female']).optional(),
      }),
      { name: 'Bola Ahmed Tinubu', threshold: 80, limit: 5, country: 'NG', birthDate: '1952', gender: 'male' },
    ),
  },
  responses: {
    200: jsonResponse(
      z.object({ message: z.string(), data: z.object({ checkId: z.string(), pep: z.array(Record_), sanction: z.array(Record_) }) }),
      'Matches',
      { message: 'Screening completed', data: { checkId: '6b09a3f9bde532ae3c24501e', pep: [pepRecordExample], sanction: [] } },
    ),
    ...errorResponses,
  },
});

const getCheck = createRoute({
  method: 'get',
  path: '/api/v1/aml/checks/{id}',
  tags,
  summary: 'Status and result of a screening check, for clients that poll',
  security,
  request: { params: z.object({ id: z.string() }) },
  responses: {
    200: jsonResponse(z.object({ message: z.string(), data: Check }), 'Check', { message: 'Check fetched', data: checkExample }),
    ...errorResponses,
    404: errorResponse(404, 'Check not found', 'Check not found'),
  },
});

const listVersions = createRoute({
  method: 'get',
  path: '/api/v1/aml/lists',
  tags,
  summary: 'The screening lists in force and their versions',
  security,
  responses: {
    200: jsonResponse(
      z.object({
        message: z.string(),
        data: z.array(
          z.object({
            list: z.string(),
            type: z.string(),
            format: z.string(),
            version: z.string(),
            contentHash: z.string(),
            records: z.number(),
            publishedAt: z.string().nullable(),
            importedAt: z.string(),
          }),
        ),
      }),
      'Lists',
      { message: 'Lists fetched', data: listsExample },
    ),
    ...errorResponses,
  },
});

const actor = (c: Context<AppEnv>) => {
  const p = c.get('principal');
  return { businessId: p.businessId, userId: p.userId, requestId: c.get('requestId') };
};

export function registerScreeningRoutes(app: App, engine: Engine): void {
  app.openapi(riskMonitoring, async (c) => {
    const body = c.req.valid('json');
    const check = await engine.screening.submit(actor(c), { kind: 'risk-monitoring', text: body.name, ...body });
    return c.json({ message: 'Risk monitoring check started', data: { checkId: check.id } }, 202);
  });
  app.openapi(adverseMedia, async (c) => {
    const body = c.req.valid('json');
    const check = await engine.screening.submit(actor(c), {
      kind: 'adverse-media',
      text: body.q,
      limit: body.limit,
      callbackUrl: body.callbackUrl,
    });
    return c.json({ message: 'Adverse media search started', data: pending(check) }, 202);
  });
  app.openapi(sanction, async (c) => {
    const body = c.req.valid('json');
    const check = await engine.screening.submit(actor(c), { kind: 'sanction', text: body.name, ...body });
    return c.json({ message: 'Sanction search started', data: pending(check) }, 202);
  });
  app.openapi(screen, async (c) => {
    const data = await engine.screening.screenAndRecord(actor(c), c.req.valid('json'));
    return c.json({ message: 'Screening completed', data }, 200);
  });
  app.openapi(getCheck, async (c) => {
    const check = await engine.screening.check(c.get('principal').businessId, c.req.valid('param').id);
    return c.json({ message: 'Check fetched', data: check }, 200);
  });
  app.openapi(listVersions, async (c) => {
    const rows = await engine.screening.lists();
    const data = rows.map((r) => ({
      list: r.list,
      type: r.type,
      format: r.format,
      version: r.version,
      contentHash: r.content_hash,
      records: r.records,
      publishedAt: r.published_at,
      importedAt: r.imported_at,
    }));
    return c.json({ message: 'Lists fetched', data }, 200);
  });
}

const pending = (check: { id: string; query: string; businessProfile: string; createdAt: string; updatedAt: string }) => ({
  id: check.id,
  query: check.query,
  businessProfile: check.businessProfile,
  status: 'pending' as const,
  createdAt: check.createdAt,
  updatedAt: check.updatedAt,
});
