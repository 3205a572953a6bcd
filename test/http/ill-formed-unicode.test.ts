// Every JSON body the API takes, with a lone surrogate in one string: 400 naming the field, never a 500 and never
// accepted (stored as UTF-8 a lone surrogate becomes U+FFFD, so two ids would become one). The bodies are the
// OpenAPI document's own examples, so each is otherwise valid.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testApi, type TestApi } from '../helpers.js';

let api: TestApi;
beforeAll(async () => {
  api = await testApi();
});
afterAll(() => api.close());

/** One copy of the example per string in it, that string with a lone surrogate added, and its field path. */
function* spoiled(example: unknown, path = ''): Generator<{ body: unknown; field: string }> {
  if (typeof example === 'string') yield { body: `${example}\ud800`, field: path };
  if (example === null || typeof example !== 'object') return;
  const entries = Array.isArray(example) ? example.map((v, i) => [i, v] as const) : Object.entries(example);
  for (const [key, value] of entries) {
    for (const inner of spoiled(value, typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key)) {
      const body = Array.isArray(example) ? [...example] : { ...(example as object) };
      (body as Record<string | number, unknown>)[key] = inner.body;
      yield { body, field: inner.field };
    }
  }
}

it('refuses a lone surrogate in every JSON body with 400 naming the field', async () => {
  const doc = (await api.call('GET', '/openapi.json')).body as {
    paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { example?: unknown }> } }>>;
  };
  const answers: string[] = [];
  let tried = 0;
  for (const [template, operations] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const example = operation.requestBody?.content?.['application/json']?.example;
      for (const { body, field } of spoiled(example)) {
        tried++;
        const res = await api.call(method.toUpperCase(), template.replace(/\{[^}]+\}/g, 'x'), { body });
        // An enum names its field as not one of its values; every other string as ill-formed.
        const named = typeof res.body?.message === 'string' && res.body.message.startsWith(field);
        if (res.status !== 400 || !named)
          answers.push(`${method.toUpperCase()} ${template} (${field}): ${res.status} ${JSON.stringify(res.body)}`);
      }
    }
  }
  expect(tried).toBeGreaterThan(100);
  expect(answers).toEqual([]);
});

it('refuses it in a customer uniqueId in-process too, naming the field', async () => {
  const actor = { businessId: api.tenantA.businessId, apiKey: api.tenantA.apiKey, keyName: 'tenant-a' };
  await expect(api.engine.cdd.customers.create(actor as never, { uniqueId: 'c\ud800', type: 'individual' } as never)).rejects.toMatchObject(
    { kind: 'validation', field: 'uniqueId' },
  );
});
