import { afterAll, beforeAll, expect, it } from 'vitest';
import { testApi, type TestApi } from '../helpers.js';

let api: TestApi;
beforeAll(async () => {
  api = await testApi();
});
afterAll(() => api.close());

it('hides an unexpected fault behind a 500 with the request id and no stack', async () => {
  api.app.get('/api/v1/boom', () => {
    throw new Error('secret detail');
  });
  const res = await api.call('GET', '/api/v1/boom', { headers: { 'X-Request-Id': 'r-500' } });
  expect(res.status).toBe(500);
  expect(res.body).toEqual({ error: 500, message: 'Internal error', requestId: 'r-500' });
});
