import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApi, type TestApi } from '../helpers.js';

let api: TestApi;
beforeAll(async () => {
  api = await testApi();
});
afterAll(() => api.close());

/** One route under each prefix of the three hosts: none may answer without credentials. */
const PROTECTED = [
  ['POST', '/api/v1/cdd/customers'],
  ['GET', '/api/v1/cdd/customers/x'],
  ['POST', '/api/v1/cdd/process'],
  ['GET', '/api/v1/cdd-request/customers/x'],
  ['POST', '/api/v1/kyc/cac'],
  ['POST', '/api/v1/aml/risk-monitoring'],
  ['POST', '/api/v1/adverse-media'],
  ['POST', '/api/v1/transaction-monitoring/instant'],
  ['GET', '/api/v1/upload'],
  ['GET', '/api/v1/case-management/case/x'],
  ['GET', '/api/v1/users'],
] as const;

describe('authentication', () => {
  it.each(PROTECTED)('%s %s answers 401 without, or with wrong, credentials', async (method, path) => {
    const attempts: Record<string, string>[] = [
      {},
      { apiKey: api.tenantA.apiKey },
      { apiKey: api.tenantA.apiKey, apiSecret: 'wrong' },
      { apiKey: 'nope', apiSecret: api.tenantA.apiSecret },
    ];
    for (const headers of attempts) {
      const res = await api.call(method, path, { key: null, headers, body: method === 'POST' ? {} : undefined });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: 'Invalid API credentials' });
    }
  });

  it('refuses a revoked key', async () => {
    const key = await api.engine.auth.issue({ name: 'short-lived' });
    expect((await api.call('GET', '/api/v1/users', { key })).status).toBe(200);
    await api.engine.auth.revoke(key.apiKey);
    expect((await api.call('GET', '/api/v1/users', { key })).status).toBe(401);
  });

  it('serves /healthz, /openapi.json and /docs without credentials', async () => {
    expect((await api.call('GET', '/healthz', { key: null })).status).toBe(200);
    const doc = await api.call('GET', '/openapi.json', { key: null });
    expect(doc.body.openapi).toBe('3.1.0');
    expect(Object.keys(doc.body.paths)).toContain('/api/v1/users');
    expect((await api.call('GET', '/docs', { key: null })).status).toBe(200);
  });

  it('gives every request body in /openapi.json an example', async () => {
    const doc = (await api.call('GET', '/openapi.json', { key: null })).body as {
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, { example?: unknown }> } }>>;
    };
    const bodies = Object.entries(doc.paths).flatMap(([path, operations]) =>
      Object.entries(operations).flatMap(([method, operation]) =>
        Object.entries(operation.requestBody?.content ?? {}).map(([type, media]) => ({ where: `${method} ${path} ${type}`, media })),
      ),
    );
    expect(bodies.length).toBeGreaterThan(20);
    expect(bodies.filter((b) => b.media.example === undefined).map((b) => b.where)).toEqual([]);
  });

  it('gives every JSON response in /openapi.json an example', async () => {
    const doc = (await api.call('GET', '/openapi.json', { key: null })).body as {
      paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { example?: unknown }> }> }>>;
    };
    const responses = Object.entries(doc.paths).flatMap(([path, operations]) =>
      Object.entries(operations).flatMap(([method, operation]) =>
        Object.entries(operation.responses).flatMap(([status, response]) =>
          Object.entries(response.content ?? {}).map(([type, media]) => ({ where: `${method} ${path} ${status} ${type}`, media })),
        ),
      ),
    );
    expect(responses.length).toBeGreaterThan(100);
    expect(responses.filter((r) => r.media.example === undefined).map((r) => r.where)).toEqual([]);
  });

  it('answers the documented request examples of the first calls a newcomer copies with the documented success', async () => {
    const doc = (await api.call('GET', '/openapi.json', { key: null })).body as {
      paths: Record<
        string,
        Record<string, { requestBody: { content: { 'application/json': { example: unknown } } }; responses: Record<string, unknown> }>
      >;
    };
    // In order: the backtest needs a stored decision to replay.
    const copied = [
      '/api/v1/transaction-monitoring/instant',
      '/api/v1/transaction-monitoring/rules/backtest',
      '/api/v1/kyc/cac',
      '/api/v1/users',
      '/api/v1/cdd/customers',
      '/api/v1/case-management/case',
      '/api/v1/aml/screen',
    ];
    for (const path of copied) {
      const operation = doc.paths[path]!.post!;
      const res = await api.call('POST', path, { body: operation.requestBody.content['application/json'].example });
      const documented = Object.keys(operation.responses).filter((status) => status.startsWith('2'));
      expect(documented, `${path}: ${JSON.stringify(res.body)}`).toContain(String(res.status));
    }
  });

  it('sends a browser at / to the console and an API client to the API docs, and versions the document as the package', async () => {
    const browser = await api.app.request('/', { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(browser.status).toBe(302);
    expect(browser.headers.get('location')).toBe('/console');
    for (const accept of ['application/json', '*/*', undefined]) {
      const client = await api.app.request('/', { headers: accept ? { accept } : {} });
      expect(client.status, accept).toBe(302);
      expect(client.headers.get('location'), accept).toBe('/docs');
    }
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect((await api.call('GET', '/openapi.json')).body.info.version).toBe(manifest.version);
  });
});

describe('tenancy', () => {
  it('answers another business with the same 404 as a missing record', async () => {
    const created = await api.call('POST', '/api/v1/users', {
      body: { firstName: 'Ngozi', lastName: 'Eze', email: 'ngozi@a.example', role: 'analyst' },
    });
    expect(created.status).toBe(201);
    const id = created.body.data._id;
    expect((await api.call('GET', `/api/v1/users/${id}`)).body.data.firstName).toBe('Ngozi');
    const other = await api.call('GET', `/api/v1/users/${id}`, { key: api.tenantB });
    const missing = await api.call('GET', '/api/v1/users/000000000000000000000000', { key: api.tenantB });
    expect(other).toMatchObject({ status: 404 });
    expect(other.body).toEqual(missing.body);
    expect((await api.call('GET', '/api/v1/users', { key: api.tenantB })).body.data.total).toBe(0);
  });
});

describe('errors', () => {
  it('names the field of each validation problem', async () => {
    const res = await api.call('POST', '/api/v1/users', { body: { firstName: 'A', lastName: 7, email: 'not-an-email' } });
    expect(res).toMatchObject({ status: 400, body: { error: 400 } });
    expect(res.body.message).toBe('lastName must be a string; email must be an email address; role is required');
  });

  it('answers malformed JSON with 400', async () => {
    const res = await api.call('POST', '/api/v1/users', { body: '{"firstName":' });
    expect(res).toEqual(expect.objectContaining({ status: 400, body: { error: 400, message: 'Malformed JSON in request body' } }));
  });

  it('answers a body over the limit with 413', async () => {
    const res = await api.call('POST', '/api/v1/users', { body: { firstName: 'x'.repeat(1024 * 1024 + 10) } });
    expect(res.status).toBe(413);
    expect(res.body.error).toBe(413);
  });

  it('answers an unknown route with JSON 404', async () => {
    const res = await api.call('GET', '/nowhere', { key: null });
    expect(res).toMatchObject({ status: 404, body: { error: 404 } });
  });

  it('echoes the X-Request-Id it was given, and makes one up otherwise', async () => {
    const res = await api.call('GET', '/api/v1/users', { headers: { 'X-Request-Id': 'req-123' } });
    expect(res.headers.get('x-request-id')).toBe('req-123');
    expect((await api.call('GET', '/healthz', { key: null })).headers.get('x-request-id')).toMatch(/.{8,}/);
  });

  it('exposes Prometheus metrics', async () => {
    const res = await api.call('GET', '/metrics', { key: null });
    expect(res.body).toContain('http_request_duration_seconds_bucket');
    expect(res.body).toContain('events_appended_total');
    expect(res.body).toMatch(/^event_commits_total \d+$/m);
  });
});
