import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testApi, type TestApi } from '../helpers.js';

const lines: Record<string, unknown>[] = [];
let api: TestApi;
beforeAll(async () => {
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  api = await testApi({ logger });
});
afterAll(() => api.close());

it('binds the request id, and the business once authenticated, to the lines a request logs', async () => {
  api.app.get('/api/v1/log-boom', () => {
    throw new Error('secret detail');
  });
  await api.call('GET', '/api/v1/log-boom', { headers: { 'X-Request-Id': 'log-1' } });
  await api.call('GET', '/healthz', { key: null, headers: { 'X-Request-Id': 'log-2' } });

  const failure = lines.find((l) => l.msg === 'unhandled error');
  expect(failure).toMatchObject({ requestId: 'log-1', businessId: api.tenantA.businessId, err: { message: 'secret detail' } });
  expect(lines.find((l) => l.msg === 'request' && l.requestId === 'log-1')).toMatchObject({
    method: 'GET',
    route: '/api/v1/log-boom',
    status: 500,
  });
  expect(lines.find((l) => l.msg === 'request' && l.requestId === 'log-2')).toMatchObject({ route: '/healthz', status: 200 });
});
