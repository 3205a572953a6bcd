import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/webhooks/events.js';
import { tx } from '../monitoring/fixtures.js';
import { testApi, type TestApi } from '../helpers.js';
import { startReceiver, webhookHeaders, type Receiver } from './receiver.js';

let api: TestApi;
let receiver: Receiver;
const path = '/api/v1/webhooks/endpoints';

beforeAll(async () => {
  api = await testApi({ workerIntervalMs: 0 });
  receiver = await startReceiver();
}, 180_000);
afterAll(async () => {
  await api.close();
  await receiver.close();
});

describe('subscribed webhook endpoints over HTTP', () => {
  it('creates an endpoint and shows its secret once; lists, reads, changes and deletes it', async () => {
    const created = await api.call('POST', path, { body: { url: receiver.url, eventTypes: ['case.created'], description: 'ops' } });
    expect(created.status).toBe(201);
    const { id, secret } = created.body.data;
    expect(secret).toMatch(/^whsec_/);
    expect(created.body.data).toMatchObject({ url: receiver.url, eventTypes: ['case.created'], description: 'ops' });

    const listed = await api.call('GET', path);
    expect(listed.body.data).toEqual([expect.objectContaining({ id, url: receiver.url })]);
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    const one = await api.call('GET', `${path}/${id}`);
    expect(one.status).toBe(200);
    expect(one.body.data.secret).toBeUndefined();

    const changed = await api.call('PATCH', `${path}/${id}`, { body: { eventTypes: ['case.created', 'decision.flagged'] } });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ eventTypes: ['case.created', 'decision.flagged'], url: receiver.url, description: 'ops' });

    expect((await api.call('DELETE', `${path}/${id}`)).status).toBe(200);
    expect((await api.call('GET', `${path}/${id}`)).status).toBe(404);
    expect((await api.call('DELETE', `${path}/${id}`)).status).toBe(404);
  });

  it('refuses bad input with a 400 naming the field', async () => {
    const unknown = await api.call('POST', path, { body: { url: receiver.url, eventTypes: ['decision.made'] } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('eventTypes');
    const none = await api.call('POST', path, { body: { url: receiver.url, eventTypes: [] } });
    expect(none.status).toBe(400);
    expect(none.body.message).toContain('eventTypes');
    const noUrl = await api.call('POST', path, { body: { eventTypes: ['case.created'] } });
    expect(noUrl.status).toBe(400);
    expect(noUrl.body.message).toContain('url');
    const badUrl = await api.call('POST', path, { body: { url: 'not a url', eventTypes: ['case.created'] } });
    expect(badUrl.status).toBe(400);
    expect(badUrl.body.message).toContain('url');
  });

  it("keeps each business's endpoints its own", async () => {
    const { body } = await api.call('POST', path, { body: { url: receiver.url, eventTypes: ['case.created'] } });
    const other = { key: api.tenantB };
    expect((await api.call('GET', `${path}/${body.data.id}`, other)).status).toBe(404);
    expect((await api.call('PATCH', `${path}/${body.data.id}`, { ...other, body: { description: 'x' } })).status).toBe(404);
    expect((await api.call('DELETE', `${path}/${body.data.id}`, other)).status).toBe(404);
    expect((await api.call('GET', path, other)).body.data).toEqual([]);
    await api.call('DELETE', `${path}/${body.data.id}`);
  });

  it('rotates a secret: deliveries are signed with the new and the old one during the overlap', async () => {
    const { body } = await api.call('POST', path, { body: { url: receiver.url, eventTypes: ['decision.created'] } });
    const rotated = await api.call('POST', `${path}/${body.data.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.secret).not.toBe(body.data.secret);
    await api.call('POST', '/api/v1/transaction-monitoring/instant', { body: tx('ROTATE-1') });
    await api.engine.webhooks.forwardEvents();
    await api.engine.webhooks.runDue();
    const hit = receiver.received.at(-1)!;
    for (const secret of [body.data.secret, rotated.body.data.secret]) {
      expect(new Webhook(secret).verify(hit.body, webhookHeaders(hit.headers))).toMatchObject({
        type: 'decision.created',
        data: { reference: 'ROTATE-1' },
      });
    }
    await api.call('DELETE', `${path}/${body.data.id}`);
  });

  it('keeps the default webhook URL of the business as it was', async () => {
    const put = await api.call('PUT', '/api/v1/webhooks', { body: { url: receiver.url } });
    expect(put.status).toBe(200);
    expect((await api.call('GET', '/api/v1/webhooks')).body.data.url).toBe(receiver.url);
  });

  it('documents every event type in the OpenAPI webhooks section', async () => {
    const doc = (await api.call('GET', '/openapi.json', { key: null })).body;
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
    const flagged = doc.webhooks['decision.flagged'].post.requestBody.content['application/json'].schema;
    expect(JSON.stringify(flagged)).toContain('DecisionEventData');
    expect(doc.paths['/api/v1/webhooks/endpoints'].post).toBeDefined();
    expect(doc.paths['/api/v1/webhooks/endpoints/{id}/rotate-secret'].post).toBeDefined();
  });
});
