import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { testApi, type TestApi } from '../helpers.js';
import { startReceiver, webhookHeaders, type Receiver } from '../webhooks/receiver.js';

let api: TestApi;
let receiver: Receiver;

beforeAll(async () => {
  api = await testApi({ clock: new ManualClock(new Date()), workerIntervalMs: 0 });
  receiver = await startReceiver();
  // The engine indexes every bundled list before it serves; the UK list's XLSX makes that minutes on a loaded machine.
}, 300_000);

afterAll(async () => {
  await api.close();
  await receiver.close();
});

/** Runs the check, delivers its webhook, and returns the verified payload the receiver got. */
async function deliverNext(): Promise<any> {
  const before = receiver.received.length;
  expect(await api.engine.screening.runPending()).toBe(1);
  expect(await api.engine.webhooks.runDue()).toBe(1);
  expect(receiver.received).toHaveLength(before + 1);
  const hit = receiver.received[before]!;
  return new Webhook(api.tenantA.webhookSecret).verify(hit.body, webhookHeaders(hit.headers));
}

describe('asynchronous screening endpoints', () => {
  it('risk-monitoring: acknowledges with a checkId and delivers the combined result, signed', async () => {
    const res = await api.call('POST', '/api/v1/aml/risk-monitoring', {
      body: { name: 'Vladimir Putin', threshold: 85, limit: 10, callbackUrl: receiver.url },
    });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ message: expect.any(String), data: { checkId: expect.any(String) } });
    const payload = await deliverNext();
    expect(payload.checkId).toBe(res.body.data.checkId);
    expect(payload.sanction).toMatchObject({ check_id: res.body.data.checkId, search_keyword: 'Vladimir Putin', type: 'sanction' });
    expect(payload.sanction.results[0]).toMatchObject({
      name: 'PUTIN, Vladimir Vladimirovich',
      type: 'sanction',
      listName: 'ofac-sdn',
      confidenceScore: 100,
    });
    expect(payload.pep).toMatchObject({ type: 'pep', results: [] });
    expect(payload.adverseMedia.info).toMatchObject({ id: res.body.data.checkId, query: 'Vladimir Putin', limit: 10 });
    for (const key of ['check_creation_date', 'last_screened_date', 'created_by']) expect(payload.pep[key]).toEqual(expect.any(String));

    const check = await api.call('GET', `/api/v1/aml/checks/${res.body.data.checkId}`);
    expect(check.body.data).toMatchObject({ status: 'completed', kind: 'risk-monitoring', result: payload });
    expect(check.body.data.listVersions.map((l: { name: string }) => l.name)).toContain('ofac-sdn');
  });

  it('adverse-media: pending acknowledgement, result to the callbackUrl', async () => {
    const res = await api.call('POST', '/api/v1/adverse-media', { body: { q: 'Michael Avenatti', limit: 5, callbackUrl: receiver.url } });
    expect(res.status).toBe(202);
    expect(res.body.data).toEqual({
      id: expect.any(String),
      query: 'Michael Avenatti',
      businessProfile: api.tenantA.businessId,
      status: 'pending',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const payload = await deliverNext();
    expect(payload).toMatchObject({ type: 'adverse media', info: { id: res.body.data.id, query: 'Michael Avenatti', limit: 5 } });
    expect(payload.info.count).toBe(payload.result.length);
    expect(payload.result[0]).toMatchObject({
      title: expect.stringContaining('Avenatti'),
      link: expect.any(String),
      keyword: { confidenceScore: 1 },
    });
    expect(payload.result[0].adverseInformation[0]).toEqual({ keyword: expect.any(String), score: expect.any(Number) });
  });

  it('sanction: without callbackUrl the result goes to the default webhook', async () => {
    const set = await api.call('PUT', '/api/v1/webhooks', { body: { url: receiver.url } });
    expect(set.status).toBe(200);
    expect((await api.call('GET', '/api/v1/webhooks')).body.data.url).toBe(receiver.url);
    const res = await api.call('POST', '/api/v1/aml/sanction', { body: { name: 'Vladimir Putin', threshold: 85, country: 'RU' } });
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({ query: 'Vladimir Putin', status: 'pending' });
    const payload = await deliverNext();
    expect(payload).toMatchObject({ check_id: res.body.data.id, type: 'sanction', country: 'RU' });
    expect(payload.results[0]).toMatchObject({ listName: 'ofac-sdn' });
    const check = await api.call('GET', `/api/v1/aml/checks/${res.body.data.id}`);
    expect(check.body.data).toMatchObject({ callbackSource: 'default', status: 'completed' });
  });

  it('with no callback and no default webhook, the result is stored for polling', async () => {
    const res = await api.call('POST', '/api/v1/adverse-media', { body: { q: 'Michael Avenatti' }, key: api.tenantB });
    expect((await api.call('GET', `/api/v1/aml/checks/${res.body.data.id}`, { key: api.tenantB })).body.data.status).toBe('pending');
    await api.engine.screening.runPending();
    expect(await api.engine.webhooks.runDue()).toBe(0);
    const check = await api.call('GET', `/api/v1/aml/checks/${res.body.data.id}`, { key: api.tenantB });
    expect(check.body.data).toMatchObject({ status: 'completed', deliveryId: null, callbackUrl: null });
    expect(check.body.data.result.type).toBe('adverse media');
  });

  it('runs a check once even when runners race', async () => {
    await api.call('POST', '/api/v1/aml/sanction', { body: { name: 'Vladimir Putin', callbackUrl: receiver.url } });
    const ran = await Promise.all([api.engine.screening.runPending(), api.engine.screening.runPending()]);
    expect(ran.reduce((a, b) => a + b, 0)).toBe(1);
    expect(await api.engine.webhooks.runDue()).toBe(1);
  });
});

describe('synchronous screening', () => {
  it('returns PEP and sanction records in the spec shape, with the list version', async () => {
    const res = await api.call('POST', '/api/v1/aml/screen', { body: { name: 'Vladimir Putin', threshold: 85, limit: 5 } });
    expect(res.status).toBe(200);
    const [record] = res.body.data.sanction;
    for (const key of [
      '_id',
      'externalId',
      'type',
      'name',
      'aliases',
      'birth_date',
      'countries',
      'entityType',
      'dataset',
      'sanctions',
      'searchScore',
      'confidenceScore',
      'listVersion',
    ]) {
      expect(record).toHaveProperty(key);
    }
    expect(res.body.data.pep).toEqual([]);
    expect((await api.call('GET', `/api/v1/aml/checks/${res.body.data.checkId}`)).body.data.status).toBe('completed');
  });

  it('finds a PEP on the bundled Nigerian list', async () => {
    const res = await api.call('POST', '/api/v1/aml/screen', { body: { name: 'Malam Wakili' } });
    expect(res.body.data.pep[0]).toMatchObject({ type: 'pep', listName: 'pep-nigeria-nass' });
  });

  it('lists every bundled list with its version, the UK and Wikidata ones included', async () => {
    const res = await api.call('GET', '/api/v1/aml/lists');
    const lists = res.body.data as { list: string; type: string; version: string; records: number }[];
    expect(lists.map((l) => `${l.list}:${l.type}`)).toEqual(
      expect.arrayContaining([
        'ofac-sdn:sanction',
        'ofac-consolidated:sanction',
        'un-sc-consolidated:sanction',
        'uk-ofsi-consolidated:sanction',
        'pep-nigeria-nass:pep',
        'pep-nigeria-wikidata:pep',
      ]),
    );
    for (const l of lists) expect(l.version).toMatch(/^[0-9a-f]{12}$/);
    expect(lists.find((l) => l.list === 'uk-ofsi-consolidated')!.records).toBe(4688);
  });

  it('gives one match, with every list behind it, for a person on several lists', async () => {
    const res = await api.call('POST', '/api/v1/aml/screen', { body: { name: 'Abubakar Shekau' } });
    const hits = (res.body.data.sanction as { name: string; sources: { listName: string }[] }[]).filter((r) => /SHEKAU/.test(r.name));
    expect(hits).toHaveLength(1);
    expect(hits[0]!.sources.map((s) => s.listName).sort()).toEqual(['ofac-sdn', 'uk-ofsi-consolidated', 'un-sc-consolidated']);
  });

  it('engine.screening.screen and adverseMedia are the in-process entry points', async () => {
    const { sanction } = await api.engine.screening.screen({ name: 'Vladimir Putin' });
    expect(sanction[0]!.name).toBe('PUTIN, Vladimir Vladimirovich');
    expect((await api.engine.screening.adverseMedia('Michael Avenatti', 3))[0]!.title).toContain('Avenatti');
  });
});

describe('validation and tenancy', () => {
  it.each([
    ['/api/v1/aml/risk-monitoring', { threshold: 85, limit: 10, callbackUrl: 'https://example.com/h' }, 'name is required'],
    ['/api/v1/aml/risk-monitoring', { name: 'X Y', threshold: 85, limit: 10 }, 'callbackUrl is required'],
    ['/api/v1/aml/sanction', { threshold: 85, country: 'NG' }, 'name is required'],
    ['/api/v1/aml/sanction', { name: 'X Y', country: 'Nigeria' }, 'country: must be a two-letter country code'],
    ['/api/v1/aml/sanction', { name: 'X Y', threshold: 101 }, 'threshold must be at most 100'],
    ['/api/v1/adverse-media', { limit: 10 }, 'q is required'],
    ['/api/v1/aml/screen', { name: '  ' }, 'name must not be empty'],
    ['/api/v1/adverse-media', { q: 'ab '.repeat(200), limit: 10 }, 'q must be at most 300 characters'],
    [
      '/api/v1/aml/risk-monitoring',
      { name: 'X Y', threshold: 85, limit: 10, callbackUrl: 'https://example.com/h', foo: 1 },
      'body has unknown field(s): foo',
    ],
    ['/api/v1/aml/sanction', { name: 'X '.repeat(200) }, 'name must be at most 300 characters'],
  ])('%s %j → 400 %s', async (path, body, message) => {
    const res = await api.call('POST', path, { body });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 400, message });
  });

  it("answers another business's check and delivery like missing ones", async () => {
    const res = await api.call('POST', '/api/v1/aml/sanction', { body: { name: 'Vladimir Putin', callbackUrl: receiver.url } });
    await api.engine.screening.runPending();
    const check = await api.call('GET', `/api/v1/aml/checks/${res.body.data.id}`);
    const deliveryId = check.body.data.deliveryId;
    expect(deliveryId).toEqual(expect.any(String));
    expect((await api.call('GET', `/api/v1/aml/checks/${res.body.data.id}`, { key: api.tenantB })).body).toEqual({
      error: 404,
      message: 'Check not found',
    });
    expect((await api.call('GET', '/api/v1/aml/checks/nope')).status).toBe(404);
    expect((await api.call('GET', `/api/v1/webhooks/deliveries/${deliveryId}`, { key: api.tenantB })).body).toEqual({
      error: 404,
      message: 'Delivery not found',
    });
    expect((await api.call('POST', `/api/v1/webhooks/deliveries/${deliveryId}/retry`, { key: api.tenantB })).status).toBe(404);
    const listB = await api.call('GET', '/api/v1/webhooks/deliveries', { key: api.tenantB });
    expect(listB.body.data.deliveries.map((d: { id: string }) => d.id)).not.toContain(deliveryId);
    await api.engine.webhooks.runDue();
  });

  it('lists deliveries by status and retries one', async () => {
    const delivered = await api.call('GET', '/api/v1/webhooks/deliveries?status=delivered&limit=2');
    expect(delivered.status).toBe(200);
    expect(delivered.body.data.deliveries).toHaveLength(2);
    expect(delivered.body.data.total).toBeGreaterThanOrEqual(2);
    for (const d of delivered.body.data.deliveries)
      expect(d).toMatchObject({ status: 'delivered', attemptLog: [{ outcome: 'delivered', statusCode: 200 }] });
    const id = delivered.body.data.deliveries[0].id;
    const retried = await api.call('POST', `/api/v1/webhooks/deliveries/${id}/retry`);
    expect(retried.status).toBe(202);
    expect(retried.body.data.status).toBe('pending');
    expect(await api.engine.webhooks.runDue()).toBe(1);
    expect((await api.call('GET', `/api/v1/webhooks/deliveries/${id}`)).body.data.attempts).toBe(2);
    expect((await api.call('GET', '/api/v1/webhooks/deliveries?status=bogus')).status).toBe(400);
  });
});
