import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApi, type TestApi } from '../helpers.js';
import { tx } from './fixtures.js';

let api: TestApi;
beforeAll(async () => {
  api = await testApi();
});
afterAll(async () => api.close());

const BASE = '/api/v1/transaction-monitoring';
let n = 0;
type Patch = NonNullable<Parameters<typeof tx>[1]>;
/** Each test uses its own parties, so velocity rules never add up across tests. */
const own = (tag: string, patch: Patch): Patch => ({
  ...patch,
  transactionData: { senderAccount: `s-${tag}`, receiverAccount: `r-${tag}`, ...patch.transactionData },
  device: { deviceId: `d-${tag}`, ...patch.device },
  anonymizedUserData: { uniqueId: `u-${tag}`, ...patch.anonymizedUserData },
});
const decide = async (patch: Patch = {}) =>
  (await api.call('POST', `${BASE}/instant`, { body: tx(`LIST-${++n}`, own(`${n}`, patch)) })).body.data;

describe('blacklists', () => {
  const lists = [
    {
      segment: 'blacklist-user',
      field: 'userId',
      value: 'user-bad',
      label: 'User',
      patch: { anonymizedUserData: { uniqueId: 'user-bad' } },
    },
    { segment: 'blacklist-user', field: 'userId', value: 'tp-bad', label: 'User', patch: { thirdPartyUserData: { uniqueId: 'tp-bad' } } },
    {
      segment: 'blacklist-vas-receiver',
      field: 'receiver',
      value: 'vas-bad',
      label: 'VAS receiver',
      patch: { transactionData: { vasReceiver: 'vas-bad' } },
    },
    { segment: 'blacklist-device', field: 'deviceId', value: 'dev-bad', label: 'Device', patch: { device: { deviceId: 'dev-bad' } } },
    {
      segment: 'blacklist-account',
      field: 'accountNumber',
      value: '1110001110',
      label: 'Account',
      patch: { transactionData: { senderAccount: '1110001110' } },
    },
    {
      segment: 'blacklist-account',
      field: 'accountNumber',
      value: '2220002220',
      label: 'Account',
      patch: { transactionData: { receiverAccount: '2220002220' } },
    },
  ];
  it.each(lists)(
    '$segment $value: listed means rejected, unlisted means approved again',
    async ({ segment, field, value, label, patch }) => {
      expect((await decide(patch)).action).toEqual({ result: 'approved', code: 1 });
      const added = await api.call('POST', `${BASE}/${segment}`, { body: { [field]: value } });
      expect(added).toMatchObject({ status: 200, body: { message: `${label} blacklisted successfully` } });
      const again = await api.call('POST', `${BASE}/${segment}`, { body: { [field]: value } });
      expect(again).toMatchObject({ status: 200, body: { message: `${label} is already blacklisted` } });

      const rejected = await decide(patch);
      expect(rejected.action).toEqual({ result: 'rejected', code: 3 });
      expect(rejected.reason.severity).toBe('critical');
      expect(rejected.ruleResult.length).toBeGreaterThan(0);
      expect((await decide(patch)).action.result).toBe('rejected');
      // Another business's blacklist does not apply.
      const other = await api.call('POST', `${BASE}/instant`, { body: tx(`LIST-B-${n}`, patch), key: api.tenantB });
      expect(other.body.data.action.result).toBe('approved');

      const removed = await api.call('DELETE', `${BASE}/${segment}/${encodeURIComponent(value)}`);
      expect(removed).toMatchObject({ status: 200, body: { message: `${label} removed from the blacklist` } });
      expect((await decide(patch)).action.result).toBe('approved');
      const missing = await api.call('DELETE', `${BASE}/${segment}/${encodeURIComponent(value)}`);
      expect(missing).toMatchObject({ status: 404, body: { error: 404, message: `${label} ${value} is not on the blacklist` } });
    },
  );

  it('rejects a user listed only on thirdPartyUserData through the engine stop, with the hit explained', async () => {
    await api.call('POST', `${BASE}/blacklist-user`, { body: { userId: 'tp-only' } });
    const d = await decide({ thirdPartyUserData: { uniqueId: 'tp-only' } });
    expect(d).toMatchObject({ riskScore: '100', action: { result: 'rejected', code: 3 }, reason: { code: 'BL000', severity: 'critical' } });
    expect(d.ruleResult.at(-1)).toMatchObject({
      id: 'ENGINE_BLACKLIST',
      observed: [{ holds: true, values: { 'thirdPartyUserData.uniqueId': 'tp-only' } }],
    });
  });

  it('lists entries page by page, per business', async () => {
    for (const v of ['p-1', 'p-2', 'p-3']) await api.call('POST', `${BASE}/blacklist-vas-receiver`, { body: { receiver: v } });
    const page = await api.call('GET', `${BASE}/blacklist-vas-receiver?page=2&limit=2`);
    expect(page.status).toBe(200);
    expect(page.body.data).toMatchObject({ total: 3, page: 2, limit: 2, entries: [{ value: 'p-3' }] });
    expect((await api.call('GET', `${BASE}/blacklist-vas-receiver`, { key: api.tenantB })).body.data.total).toBe(0);
  });
});

describe('devices', () => {
  const large = (deviceId: string, user = 'user-dev') => ({
    transactionData: { amount: 600_000 },
    device: { deviceId },
    anonymizedUserData: { uniqueId: user },
  });

  it('a saved device is not new; an unsaved first-seen one is', async () => {
    const fresh = await decide(large('phone-new'));
    expect(fresh.ruleResult.map((r: { id: string }) => r.id)).toContain('NEW_DEVICE_LARGE');

    const saved = await api.call('POST', `${BASE}/customers/device`, {
      body: {
        customerId: 'user-dev',
        device: { deviceId: 'phone-saved', manufacturer: 'Apple', model: 'iPhone 15', name: 'Ada', osName: 'iOS', osVersion: '17.5' },
      },
    });
    expect(saved).toMatchObject({ status: 200, body: { message: 'Device saved successfully' } });
    const known = await decide(large('phone-saved'));
    expect(known.ruleResult?.map((r: { id: string }) => r.id) ?? []).not.toContain('NEW_DEVICE_LARGE');
    // The device is known for that customer only.
    const otherUser = await decide(large('phone-saved', 'user-other'));
    expect(otherUser.ruleResult.map((r: { id: string }) => r.id)).toContain('NEW_DEVICE_LARGE');
  });

  it('saving the same details twice records one event', async () => {
    const body = { customerId: 'user-twice', device: { deviceId: 'd-1', osName: 'Android', osVersion: '14' } };
    await api.call('POST', `${BASE}/customers/device`, { body });
    expect((await api.call('POST', `${BASE}/customers/device`, { body })).body.message).toBe('Device already saved');
    const upgraded = await api.call('POST', `${BASE}/customers/device`, { body: { ...body, device: { ...body.device, osVersion: '15' } } });
    expect(upgraded.body.message).toBe('Device saved successfully');
  });
});
