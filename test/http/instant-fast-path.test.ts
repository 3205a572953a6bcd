import { createRoute, OpenAPIHono } from '@hono/zod-openapi';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AppEnv } from '../../src/http/env.js';
import { onError } from '../../src/http/errors.js';
import { jsonBody } from '../../src/http/schemas.js';
import { validationHook } from '../../src/http/validation.js';
import { InstantRequestSchema } from '../../src/monitoring/index.js';
import { testApi, type TestApi } from '../helpers.js';
import { tx } from '../monitoring/fixtures.js';

let api: TestApi;
beforeAll(async () => {
  api = await testApi();
});
afterAll(() => api.close());

/** The route as @hono/zod-openapi alone would serve it: media-type gate, JSON validator, zod, the app's hook. */
const reference = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
reference.openapi(
  createRoute({
    method: 'post',
    path: '/instant',
    request: { body: jsonBody(InstantRequestSchema, { transactionData: { reference: 'TX-1' } }) },
    responses: { 200: { description: 'accepted' } },
  }),
  (c) => c.json({ accepted: true }, 200),
);
reference.onError(onError);

const CONTENT_TYPES = [
  undefined,
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/vnd.api+json',
  'application/json ; charset=utf-8',
  'application/json;',
  'application/jsonx',
  'application/json, text/plain',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
];
const BODIES = [
  undefined,
  '',
  JSON.stringify(tx('fast-path-1')),
  JSON.stringify(tx('fast-path-2', { transactionData: { amount: '100' }, device: { colour: 'red' } })),
  JSON.stringify({}),
  '{"transactionData": ',
  'null',
  '[]',
  '"text"',
  '12',
];

it('answers every content type and body as the generic zod-openapi route does', async () => {
  for (const type of CONTENT_TYPES) {
    for (const body of BODIES) {
      // Bytes, so that no content type is made up for a body that has none.
      const init = () => ({
        method: 'POST',
        headers: { ...(type ? { 'content-type': type } : {}) },
        body: body === undefined ? undefined : new TextEncoder().encode(body),
      });
      const expected = await reference.request('/instant', init());
      const keyed = init();
      const actual = await api.app.request('/api/v1/transaction-monitoring/instant', {
        ...keyed,
        headers: { ...keyed.headers, apiKey: api.tenantA.apiKey, apiSecret: api.tenantA.apiSecret },
      });
      const context = `${type} ${body?.slice(0, 40)}`;
      if (expected.status === 200) {
        expect(actual.status, context).toBe(200);
        expect(((await actual.json()) as { message: string }).message, context).toBe('Transaction processed successfully');
      } else {
        expect({ status: actual.status, body: await actual.json() }, context).toEqual({
          status: expected.status,
          body: await expected.json(),
        });
      }
    }
  }
});

it('describes the instant body in the OpenAPI document, though no zod validator runs on the route', async () => {
  const doc = (await (await api.app.request('/openapi.json')).json()) as {
    paths: Record<string, Record<string, { requestBody: { content: Record<string, { schema: { $ref: string } }> } }>>;
    components: { schemas: Record<string, { properties: Record<string, unknown>; required: string[] }> };
  };
  const body = doc.paths['/api/v1/transaction-monitoring/instant']!.post!.requestBody.content['application/json']!.schema;
  expect(body.$ref).toBe('#/components/schemas/InstantRequest');
  const schema = doc.components.schemas.InstantRequest!;
  expect(schema.required).toEqual(expect.arrayContaining(['transactionData']));
  expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['transactionData', 'device', 'thirdPartyUserData']));
});
