import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApi, type TestApi } from '../helpers.js';
import { corporate, individual } from './fixtures.js';

let api: TestApi;
beforeAll(async () => {
  api = await testApi();
});
afterAll(() => api.close());

describe('customers', () => {
  it('round-trips an individual through create and read, by uniqueId and by account number', async () => {
    const body = individual('cust-1001');
    const created = await api.call('POST', '/api/v1/cdd/customers', { body });
    expect(created.status).toBe(201);
    expect(created.body.message).toBe('Customer created');
    const read = await api.call('GET', '/api/v1/cdd/customers/cust-1001');
    expect(read.status).toBe(200);
    expect(read.body.success).toBe(true);
    const { customer, customerRiskSummary, checks } = read.body.data;
    expect(customer).toMatchObject({ ...body, kycDocuments: [{ ...body.kycDocuments[0], source: 'cdd' }] });
    expect(customer.createdAt).toMatch(/Z$/);
    expect(customer).toMatchObject({ pepId: null, pepConfirmedAt: null, sanctionId: null, adverseMediaId: null });
    expect(customerRiskSummary).toMatchObject({
      overallRating: 'low',
      overallDecision: 0,
      coverageStatus: 'computed',
      autoHighRiskCategories: [],
    });
    expect(checks).toEqual({});
    const byAccount = await api.call('GET', `/api/v1/cdd/customers/${body.accounts[0]!.accountNumber}`);
    expect(byAccount.body.data.customer.uniqueId).toBe('cust-1001');
  });

  it('round-trips a corporate customer, assigning uniqueIds to its persons', async () => {
    const body = corporate('corp-2001');
    expect((await api.call('POST', '/api/v1/cdd/customers', { body })).status).toBe(201);
    const read = await api.call('GET', '/api/v1/cdd/customers/corp-2001');
    const data = read.body.data;
    expect(data.customer).toMatchObject({ businessName: body.businessName, annualTurnover: 60_000_000, type: 'corporate' });
    expect(data.directors).toHaveLength(1);
    expect(data.directors[0].uniqueId).toMatch(/^[0-9a-f]{24}$/);
    expect(data.directors[0].data).toMatchObject({ ...body.directors[0], uniqueId: data.directors[0].uniqueId, pepId: null });
    expect(data.signatories[0]).toMatchObject({ data: body.signatories[0], checks: {} });
    expect(data.customerRiskSummary.overallRating).toBeDefined();
  });

  it('refuses a duplicate uniqueId or account number with 409', async () => {
    const dup = await api.call('POST', '/api/v1/cdd/customers', { body: individual('cust-1001') });
    expect(dup).toMatchObject({ status: 409, body: { message: 'a customer with uniqueId cust-1001 already exists' } });
    const account = await api.call('POST', '/api/v1/cdd/customers', {
      body: individual('cust-1002', { accounts: individual('cust-1001').accounts }),
    });
    expect(account.status).toBe(409);
    expect(account.body.message).toMatch(/account number .* already belongs to another customer/);
  });

  it('names the field of each validation problem', async () => {
    const missing = await api.call('POST', '/api/v1/cdd/customers', { body: { type: 'individual' } });
    expect(missing).toMatchObject({ status: 400, body: { error: 400, message: 'uniqueId is required' } });
    const badType = await api.call('POST', '/api/v1/cdd/customers', { body: { uniqueId: 'x', type: 'robot' } });
    expect(badType).toMatchObject({ status: 400, body: { message: 'type must be one of: individual, corporate' } });
    expect((await api.call('POST', '/api/v1/cdd/customers', { body: { uniqueId: 'x' } })).body.message).toBe('type is required');
    expect((await api.call('POST', '/api/v1/cdd/customers', { body: individual('cust-bad', { metadata: 'x' }) })).body.message).toBe(
      'metadata must be an object',
    );
    // As JSON text: the test's own JSON.stringify would overflow on it, as the event's did before the bound.
    const deep = `${'{"deeper":'.repeat(5_000)}{}${'}'.repeat(5_000)}`;
    const body = `${JSON.stringify(individual('cust-bad')).slice(0, -1)},"metadata":${deep}}`;
    expect((await api.call('POST', '/api/v1/cdd/customers', { body })).body.message).toBe('metadata: must not nest more than 32 levels');
    const urls = await api.call('POST', '/api/v1/cdd/customers', {
      body: individual('cust-bad', {
        proofOfAddress: 'javascript:alert(1)',
        kycDocuments: [{ type: 'bvn', fileUrl: 'file:///etc/passwd' }],
      }),
    });
    expect(urls.body.message).toBe('kycDocuments[0].fileUrl must be an http or https URL; proofOfAddress must be an http or https URL');
    const twice = await api.call('POST', '/api/v1/cdd/customers', {
      body: individual('cust-bad', { accounts: [{ accountNumber: 'A1' }, { accountNumber: 'A2' }, { accountNumber: 'A1' }] }),
    });
    expect(twice).toMatchObject({ status: 400, body: { message: 'accounts[2].accountNumber: A1 is already accounts[0]' } });
    const fields = await api.call('POST', '/api/v1/cdd/customers', {
      body: individual('cust-bad', { monthlyIncome: '100', dob: '12/01/1990', accounts: [{ accountNumber: '1', averageBalance: 'x' }] }),
    });
    expect(fields.status).toBe(400);
    expect(fields.body.message).toContain('monthlyIncome must be a number');
    expect(fields.body.message).toContain('dob must be an ISO 8601 timestamp');
    expect(fields.body.message).toContain('accounts[0].averageBalance must be a number');
    const unknown = await api.call('POST', '/api/v1/cdd/customers', { body: individual('cust-bad', { favouriteColour: 'blue' }) });
    expect(unknown.body.message).toBe('body has unknown field(s): favouriteColour');
  });

  it('keeps timestamps as UTC with milliseconds, and a day such as a date of birth as the day written', async () => {
    const body = individual('cust-times', {
      dob: '1990-01-01T00:00:00+01:00',
      lastReviewDate: '2026-01-15T10:30:00+01:00',
      kycDocuments: [{ type: 'passport', issueDate: '2020-06-01T09:00:00-05:00', verifiedAt: '2026-01-15T10:30:00Z' }],
    });
    expect((await api.call('POST', '/api/v1/cdd/customers', { body })).status).toBe(201);
    const { customer } = (await api.call('GET', '/api/v1/cdd/customers/cust-times')).body.data;
    expect(customer).toMatchObject({ dob: '1990-01-01T00:00:00.000Z', lastReviewDate: '2026-01-15T09:30:00.000Z' });
    expect(customer.kycDocuments[0]).toMatchObject({ issueDate: '2020-06-01T00:00:00.000Z', verifiedAt: '2026-01-15T10:30:00.000Z' });
  });

  it('answers an unknown or another business customer with {success: false} 404', async () => {
    const missing = await api.call('GET', '/api/v1/cdd/customers/nobody');
    expect(missing).toMatchObject({ status: 404, body: { success: false, message: 'Customer not found' } });
    const other = await api.call('GET', '/api/v1/cdd/customers/cust-1001', { key: api.tenantB });
    expect(other.status).toBe(404);
    expect(other.body).toEqual(missing.body);
    expect((await api.call('PATCH', '/api/v1/cdd/customers/cust-1001', { key: api.tenantB, body: { occupation: 'x' } })).status).toBe(404);
  });

  it('updates fields by PATCH and reassesses risk', async () => {
    const patched = await api.call('PATCH', '/api/v1/cdd/customers/cust-1001', {
      body: { countryOfResidence: 'IR', occupation: 'jeweller' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data.countryOfResidence).toBe('IR');
    const summary = patched.body.data.customerRiskSummary;
    expect(summary.factors.map((f: { rule: string }) => f.rule)).toEqual(expect.arrayContaining(['CR_COUNTRY', 'CR_OCCUPATION']));
    expect(summary.overallRating).toBe('medium');
    expect(summary.overallDecision).toBe(1);
    expect(summary.overallScore).toBe(55);
    const bad = await api.call('PATCH', '/api/v1/cdd/customers/cust-1001', { body: { monthlyIncome: 'lots' } });
    expect(bad).toMatchObject({ status: 400, body: { message: 'monthlyIncome must be a number' } });
    const corporateField = await api.call('PATCH', '/api/v1/cdd/customers/cust-1001', { body: { businessName: 'X' } });
    expect(corporateField.body.message).toBe('body has unknown field(s): businessName');
    // What a client read may go back with its identity unchanged; a changed identity is refused by name.
    const same = await api.call('PATCH', '/api/v1/cdd/customers/cust-1001', {
      body: { type: 'individual', uniqueId: 'cust-1001', occupation: 'jeweller' },
    });
    expect(same.status).toBe(200);
    const retype = await api.call('PATCH', '/api/v1/cdd/customers/cust-1001', { body: { type: 'corporate' } });
    expect(retype).toMatchObject({ status: 400, body: { message: 'type cannot change: it identifies the customer (individual)' } });
    const rename = await api.call('PATCH', '/api/v1/cdd/customers/cust-1001', { body: { uniqueId: 'cust-9' } });
    expect(rename.body.message).toBe('uniqueId cannot change: it identifies the customer (cust-1001)');
  });
});
