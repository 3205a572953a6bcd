import { Readable } from 'node:stream';
import { createRoute, z } from '@hono/zod-openapi';
import type { Engine } from '../../engine.js';
import { FILE_TYPES, UPLOAD_ACCESS } from '../../uploads/index.js';
import type { App } from '../env.js';
import { errorResponse, errorResponses, jsonResponse, security } from '../schemas.js';

const tags = ['Upload'];
const KEY = '6b09a94bdb90af88c1ff8ab9.pdf';
const SHA256 = 'f31cdee0b4d4fdae0638872f6bb7d0e6ee041386a9055d5e64c25d9d35dc88d1';
const KeyParams = z.object({ key: z.string().openapi({ example: '65a1b2c3d4e5f60718293a4b.gz' }) });

const requestUpload = createRoute({
  method: 'get',
  path: '/api/v1/upload',
  tags,
  summary: 'Get a signed URL that accepts one PUT of a file',
  security,
  request: {
    query: z.object({
      fileType: z
        .string()
        .min(1)
        .openapi({ example: 'gz', description: `One of: ${Object.keys(FILE_TYPES).join(', ')}` }),
      access: z
        .enum(UPLOAD_ACCESS)
        .default('private')
        .openapi({ description: 'private (default): read only through signed URLs; public: readable by anyone with the key' }),
    }),
  },
  responses: {
    200: jsonResponse(
      z.object({ message: z.string(), data: z.object({ key: z.string(), url: z.string() }) }),
      'Key and signed upload URL',
      {
        message: 'Upload URL created',
        data: {
          key: KEY,
          url: `https://compliance.example.com/uploads/${KEY}?expires=1795796175&max=104857600&sig=i1iBmHOf61wjwgswuvzW4sJeqrxMcRgzT4LBa4AoVr4`,
        },
      },
    ),
    ...errorResponses,
  },
});

const describeUpload = createRoute({
  method: 'get',
  path: '/api/v1/upload/{key}',
  tags,
  summary: 'Describe a completed upload, with a short-lived signed URL to read it',
  security,
  request: { params: KeyParams },
  responses: {
    200: jsonResponse(
      z.object({
        message: z.string(),
        data: z.object({
          key: z.string(),
          url: z.string(),
          expiresAt: z.string().nullable(),
          size: z.number(),
          sha256: z.string(),
          contentType: z.string(),
        }),
      }),
      'The upload',
      {
        message: 'Upload fetched',
        data: {
          key: KEY,
          size: 48213,
          sha256: SHA256,
          contentType: 'application/pdf',
          url: `https://compliance.example.com/uploads/${KEY}?expires=1795795575&sig=JlQ6gnCmkGbtDgt3Sd0H_11D66nETmESfvFKY7H8Qc8`,
          expiresAt: '2026-11-27T16:06:15.000Z',
        },
      },
    ),
    ...errorResponses,
    404: errorResponse(404, 'Upload not found (or not yet received)', 'Upload not found'),
  },
});

const SignedQuery = z.object({ expires: z.string().optional(), max: z.string().optional(), sig: z.string().optional() });

/** Outside /api/v1: the signature in the query is the credential, and the body is streamed with its own cap. */
const putObject = createRoute({
  method: 'put',
  path: '/uploads/{key}',
  tags,
  summary: 'Upload the file body to a signed URL (once)',
  request: { params: KeyParams, query: SignedQuery },
  responses: {
    201: jsonResponse(
      z.object({ message: z.string(), data: z.object({ key: z.string(), size: z.number(), sha256: z.string(), contentType: z.string() }) }),
      'Stored',
      { message: 'File uploaded', data: { key: KEY, size: 48213, sha256: SHA256, contentType: 'application/pdf' } },
    ),
    403: errorResponse(403, 'Signature invalid or expired', 'upload URL signature is invalid'),
    409: errorResponse(409, 'Already uploaded', `upload ${KEY} was already received`),
    413: errorResponse(413, 'Body over the URL size limit', 'upload is larger than its limit of 104857600 bytes'),
  },
});

const getObject = createRoute({
  method: 'get',
  path: '/uploads/{key}',
  tags,
  summary: 'Download a stored file (public, or private with a signed URL)',
  request: { params: KeyParams, query: SignedQuery },
  responses: {
    200: { description: 'The file bytes' },
    403: errorResponse(403, 'Signature invalid or expired', 'upload URL signature is invalid'),
    404: errorResponse(404, 'Upload not found', 'Upload not found'),
  },
});

/**
 * Uploads are tenants' bytes served from the service's own origin, next to /docs and the console: an XML file can
 * hold XHTML with scripts. They are downloads, never rendered (attachment), never sniffed into another type, and a
 * browser that renders one anyway does so in a sandbox with no script and no origin.
 */
const UPLOAD_SAFETY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "sandbox; default-src 'none'",
  'Cross-Origin-Resource-Policy': 'same-origin',
} as const;

export function registerUploadRoutes(app: App, engine: Engine): void {
  app.openapi(requestUpload, async (c) => {
    const p = c.get('principal');
    const { key, url } = await engine.uploads.authorize(
      { businessId: p.businessId, userId: p.userId, requestId: c.get('requestId') },
      c.req.valid('query'),
    );
    return c.json({ message: 'Upload URL created', data: { key, url } }, 200);
  });
  app.openapi(describeUpload, async (c) => {
    const { access: _access, ...data } = await engine.uploads.describe(c.get('principal').businessId, c.req.valid('param').key);
    return c.json({ message: 'Upload fetched', data }, 200);
  });
  app.openapi(putObject, async (c) => {
    const length = c.req.header('content-length');
    const declared = length === undefined ? undefined : Number(length);
    const stored = await engine.uploads.receive(c.req.valid('param').key, c.req.valid('query'), c.req.raw.body, declared);
    return c.json({ message: 'File uploaded', data: stored }, 201);
  });
  app.openapi(getObject, async (c) => {
    const { stream, size, contentType } = await engine.uploads.open(c.req.valid('param').key, c.req.valid('query'));
    const body = Readable.toWeb(stream) as ReadableStream<Uint8Array>;
    return c.body(body, 200, {
      'Content-Type': contentType,
      'Content-Length': String(size),
      ...UPLOAD_SAFETY_HEADERS,
      'Content-Disposition': `attachment; filename="${c.req.valid('param').key}"`,
    });
  });
}
