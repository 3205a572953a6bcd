import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../src/webhooks/index.js';
import { testApi, type TestApi } from '../helpers.js';
import { startReceiver, type Receiver } from './receiver.js';

let api: TestApi;
let receiver: Receiver;

beforeAll(async () => {
  api = await testApi({ allowInsecureWebhooks: false, workerIntervalMs: 0 });
  receiver = await startReceiver();
});
afterAll(async () => {
  await api.close();
  await receiver.close();
});

describe('callback URLs when insecure webhooks are off', () => {
  it.each<[string, string]>([
    ['http://example.com/hook', 'callbackUrl must use https'],
    ['https://localhost/hook', 'callbackUrl must not point to a private, loopback, link-local or reserved address'],
    ['https://127.0.0.1/hook', 'callbackUrl must not point to a private, loopback, link-local or reserved address'],
    ['https://10.1.2.3/hook', 'callbackUrl must not point to a private, loopback, link-local or reserved address'],
    ['https://192.168.0.10/hook', 'callbackUrl must not point to a private, loopback, link-local or reserved address'],
    ['https://169.254.169.254/latest/meta-data', 'callbackUrl must not point to a private, loopback, link-local or reserved address'],
    ['https://[::1]/hook', 'callbackUrl must not point to a private, loopback, link-local or reserved address'],
    ['https://[::ffff:127.0.0.1]/hook', 'callbackUrl must not point to a private, loopback, link-local or reserved address'],
    // IPv4 inside IPv6 (compatible, mapped in hex, SIIT, 6to4, NAT64 local-use) and the discard prefix.
    ...[
      '[::a9fe:a9fe]',
      '[::127.0.0.1]',
      '[::ffff:0:7f00:1]',
      '[2002:7f00:1::]',
      '[2002:a9fe:a9fe::]',
      '[64:ff9b:1::a9fe:a9fe]',
      '[100::1]',
    ].map((host): [string, string] => [
      `https://${host}/hook`,
      'callbackUrl must not point to a private, loopback, link-local or reserved address',
    ]),
    ['not a url', 'callbackUrl must be a URL'],
  ])('refuses %s at submit time', async (callbackUrl, message) => {
    const res = await api.call('POST', '/api/v1/aml/risk-monitoring', {
      body: { name: 'Vladimir Putin', threshold: 85, limit: 10, callbackUrl },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(400);
    expect(res.body.message).toContain(message);
  });

  it('does not say what a refused host resolved to', async () => {
    const res = await api.call('POST', '/api/v1/aml/risk-monitoring', {
      body: { name: 'Vladimir Putin', threshold: 85, limit: 10, callbackUrl: 'https://localhost:18233/' },
    });
    expect(res.status).toBe(400);
    expect(res.body.message).not.toMatch(/127\.0\.0\.1|::1/);
  });

  it('refuses a private default webhook URL', async () => {
    const res = await api.call('PUT', '/api/v1/webhooks', { body: { url: 'https://127.0.0.1/hook' } });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('url must not point to a private');
  });

  it('refuses again at delivery time, and never reaches the host', async () => {
    // A delivery to a loopback address that got past submission (say, DNS changed since) is refused when sent.
    const { deliveryId, write } = api.engine.webhooks.deliveryWrite({
      url: receiver.url.replace('http:', 'https:'),
      eventType: 't',
      subject: 's',
      payload: {},
    });
    await api.engine.store.appendMany([write], { businessId: api.tenantA.businessId, actor: 'test' });
    await api.engine.webhooks.runDue();
    const d = await api.engine.webhooks.get(api.tenantA.businessId, deliveryId);
    expect(d.lastError).toMatch(/not an allowed webhook address/);
    // The policy's refusal is final: one attempt, then failed, not two days of retries.
    expect(d.status).toBe('failed');
    expect(d.attempts).toBe(1);
    const plain = api.engine.webhooks.deliveryWrite({ url: receiver.url, eventType: 't', subject: 's', payload: {} });
    await api.engine.store.appendMany([plain.write], { businessId: api.tenantA.businessId, actor: 'test' });
    await api.engine.webhooks.runDue();
    const refusedPlain = await api.engine.webhooks.get(api.tenantA.businessId, plain.deliveryId);
    expect(refusedPlain.lastError).toMatch(/https/);
    expect(refusedPlain.status).toBe('failed');
    expect(receiver.received).toHaveLength(0);
  });

  it('classifies addresses', () => {
    for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111']) expect(isPublicAddress(a)).toBe(true);
    for (const a of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.1.1',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fe80::1',
      'fd00::1',
      '::ffff:10.0.0.1',
      '::a9fe:a9fe',
      '::127.0.0.1',
      '::ffff:0:7f00:1',
      '2002:7f00:1::',
      '2002:a9fe:a9fe::',
      '64:ff9b::808:808',
      '64:ff9b:1::a9fe:a9fe',
      '100::1',
      '2001:db8::1',
      '2001::1',
      'not an address',
    ]) {
      expect(isPublicAddress(a)).toBe(false);
    }
  });
});
