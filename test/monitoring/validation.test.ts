import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApi, type TestApi } from '../helpers.js';
import { tx } from './fixtures.js';

let api: TestApi;
beforeAll(async () => {
  api = await testApi();
});
afterAll(async () => api.close());

const INSTANT = '/api/v1/transaction-monitoring/instant';
const post = (body: unknown) => api.call('POST', INSTANT, { body });

describe('instant body validation', () => {
  it('requires transactionData.reference', async () => {
    const body = tx('x');
    delete (body.transactionData as Record<string, unknown>).reference;
    expect(await post(body)).toMatchObject({ status: 400, body: { error: 400, message: 'transactionData.reference is required' } });
    expect((await post({})).body.message).toMatch(/^transactionData is required/);
  });

  const cases: [string, Record<string, unknown>, string][] = [
    ['transactionData amount as a string', { transactionData: { amount: '100' } }, 'transactionData.amount must be a number'],
    [
      'transactionData timestamp',
      { transactionData: { transactionDate: '12/06/2024' } },
      'transactionData.transactionDate must be an ISO 8601 timestamp',
    ],
    ['transactionData boolean', { transactionData: { isCheque: 'no' } }, 'transactionData.isCheque must be a boolean'],
    // The interface lists status among transactionData's booleans.
    ['transactionData status as text', { transactionData: { status: 'pending' } }, 'transactionData.status must be a boolean'],
    ['extended transactionData number', { transactionData: { exchangeRate: '1.5' } }, 'transactionData.exchangeRate must be a number'],
    ['device string', { device: { deviceId: 42 } }, 'device.deviceId must be a string'],
    ['anonymizedUserData integer', { anonymizedUserData: { age: 34.5 } }, 'anonymizedUserData.age must be an integer'],
    [
      'anonymizedUserData timestamp',
      { anonymizedUserData: { dateJoined: 'yesterday' } },
      'anonymizedUserData.dateJoined must be an ISO 8601 timestamp',
    ],
    [
      'anonymizedUserData extended number',
      { anonymizedUserData: { identityNumber: 'A1' } },
      'anonymizedUserData.identityNumber must be a number',
    ],
    ['counterpartyData', { counterpartyData: { identityNumber: '12' } }, 'counterpartyData.identityNumber must be a number'],
    ['thirdPartyUserData', { thirdPartyUserData: { cardPan: 5399 } }, 'thirdPartyUserData.cardPan must be a string'],
    ['location', { location: { latitude: 6.6 } }, 'location.latitude must be a string'],
    ['screeningData', { screeningData: { receiverName: ['a'] } }, 'screeningData.receiverName must be a string'],
    ['limits', { limits: { dailyLimit: '1000' } }, 'limits.dailyLimit must be a number'],
    ['beneficiary', { beneficiary: { isNewBeneficiary: 1 } }, 'beneficiary.isNewBeneficiary must be a boolean'],
    ['ipAddress', { ipAddress: 10 }, 'ipAddress must be a string'],
    ['a group that is not an object', { location: 'Lagos' }, 'location must be an object'],
    ['an unknown field', { device: { colour: 'red' } }, 'device has unknown field(s): colour'],
  ];
  it.each(cases)('names the field: %s', async (_name, patch, message) => {
    const res = await post(tx(`bad-${_name}`, patch as never));
    expect(res).toMatchObject({ status: 400, body: { error: 400, message } });
  });

  it('accepts the extended variant and null for absent fields', async () => {
    const res = await post(
      tx('extended-1', {
        transactionData: {
          accountCurrency: 'USD',
          accountCurrencyBalanceBefore: 1000,
          transactionScheme: 'swift',
          exchangeRate: 1500.5,
          usdExchangeRate: 1,
          signatory: 'A',
        },
        anonymizedUserData: { identityNumber: 12345, pepStatus: false, dob: '1990-01-01', userRisk: 'low', sow: 'salary' },
        counterpartyData: { accountNumber: '555', country: 'NG', bankCountry: 'NG', name: 'Chinedu Okeke', identityNumber: 99 },
        location: null,
        beneficiary: { isNewBeneficiary: null },
      }),
    );
    expect(res.status).toBe(200);
    expect(res.body.data.action).toEqual({ result: 'approved', code: 1 });
  });

  it('refuses malformed JSON with a 400', async () => {
    const res = await api.call('POST', INSTANT, { body: '{"transactionData": ' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(400);
  });

  it('validates device and blacklist bodies', async () => {
    expect(
      await api.call('POST', '/api/v1/transaction-monitoring/customers/device', { body: { device: { deviceId: 'd' } } }),
    ).toMatchObject({
      status: 400,
      body: { error: 400, message: 'customerId is required' },
    });
    expect(
      await api.call('POST', '/api/v1/transaction-monitoring/customers/device', { body: { customerId: 'c', device: { deviceId: '' } } }),
    ).toMatchObject({
      status: 400,
      body: { message: 'device.deviceId must not be empty' },
    });
    expect(await api.call('POST', '/api/v1/transaction-monitoring/blacklist-user', { body: {} })).toMatchObject({
      status: 400,
      body: { error: 400, message: 'userId is required' },
    });
    expect(await api.call('POST', '/api/v1/transaction-monitoring/blacklist-vas-receiver', { body: { receiver: 7 } })).toMatchObject({
      status: 400,
      body: { message: 'receiver must be a string' },
    });
  });

  it('validates in-process calls the same way', async () => {
    await expect(api.engine.decide({ transactionData: { amount: 5 } })).rejects.toThrow('transactionData.reference is required');
  });

  it('refuses a reference holding a lone surrogate, which the database could not tell from another', async () => {
    const message = 'transactionData.reference must be well-formed Unicode: it holds a lone surrogate';
    // Sent as JSON text, since the escape is what a client would send.
    const res = await api.call('POST', '/api/v1/transaction-monitoring/instant', {
      body: JSON.parse('{"transactionData":{"reference":"REF-\\ud800"}}'),
    });
    expect(res).toMatchObject({ status: 400, body: { error: 400, message } });
    await expect(api.engine.decide({ transactionData: { reference: 'REF-\udc01' } })).rejects.toThrow(message);
    expect((await post(tx('REF-\ud83d\ude00'))).status).toBe(200);
  });
});
