import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.js';
import { testApi, type TestApi } from '../helpers.js';
import { tx } from '../monitoring/fixtures.js';

const LIMIT = 4096;
const INSTANT = '/api/v1/transaction-monitoring/instant';

let api: TestApi;
let server: ServerType;
let port: number;
beforeAll(async () => {
  api = await testApi();
  const app = createApp(api.engine, { bodyLimitBytes: LIMIT });
  await new Promise<void>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await api.close();
});

/** One request over a real socket; without `chunked`, the body goes with a Content-Length. */
function send(body: string, options: { headers?: Record<string, string>; chunked?: boolean } = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: any }>((resolve, reject) => {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      apiKey: api.tenantA.apiKey,
      apiSecret: api.tenantA.apiSecret,
      ...options.headers,
    };
    if (!options.chunked) headers['content-length'] = String(Buffer.byteLength(body));
    const req = http.request({ host: '127.0.0.1', port, path: INSTANT, method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    if (options.chunked) for (let i = 0; i < body.length; i += 1000) req.write(body.slice(i, i + 1000));
    req.end(options.chunked ? undefined : body);
  });
}

const padded = (reference: string) => JSON.stringify(tx(reference, { transactionData: { narration: 'x'.repeat(LIMIT) } }));

describe('POST /instant over @hono/node-server', () => {
  it('decides, with a request id on the response', async () => {
    const res = await send(JSON.stringify(tx('socket-1')));
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Transaction processed successfully');
    expect(res.headers['x-request-id']).toMatch(/.{8,}/);
    expect((await send(JSON.stringify(tx('socket-2')), { headers: { 'X-Request-Id': 'req-abc' } })).headers['x-request-id']).toBe(
      'req-abc',
    );
  });

  it('answers 413 for a body over the limit, declared or chunked, and takes a chunked body under it', async () => {
    const tooLarge = { status: 413, body: { error: 413, message: `request body is larger than ${LIMIT} bytes` } };
    expect(await send(padded('socket-big-1'))).toMatchObject(tooLarge);
    expect(await send(padded('socket-big-2'), { chunked: true })).toMatchObject(tooLarge);
    expect(await send(JSON.stringify(tx('socket-chunked')), { chunked: true })).toMatchObject({ status: 200 });
  });

  it('answers malformed JSON, an invalid field and a wrong content type as on every route', async () => {
    expect(await send('{"transactionData": ')).toMatchObject({
      status: 400,
      body: { error: 400, message: 'Malformed JSON in request body' },
    });
    expect(await send(JSON.stringify(tx('socket-3', { transactionData: { amount: '1' } })))).toMatchObject({
      status: 400,
      body: { error: 400, message: 'transactionData.amount must be a number' },
    });
    expect(await send('x', { headers: { 'content-type': 'text/plain' } })).toMatchObject({
      status: 415,
      body: { error: 415, message: 'Unsupported Media Type' },
    });
  });

  it('records the request in the latency histogram under its route pattern', async () => {
    const metrics = await api.call('GET', '/metrics', { key: null });
    expect(metrics.body).toMatch(
      /http_request_duration_seconds_count\{method="POST",route="\/api\/v1\/transaction-monitoring\/instant",status="200"\} [1-9]/,
    );
  });
});
