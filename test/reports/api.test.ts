import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFius } from '../../src/reports/index.js';
import { schemaForFiu, shippedSchema, validateAgainst } from '../../src/reports/schema.js';
import { testApi, type TestApi } from '../helpers.js';
import { customer, reportedCase, settings } from './fixtures.js';

let api: TestApi;
let businessId: string;
beforeAll(async () => {
  api = await testApi();
  businessId = api.tenantA.businessId;
  expect((await api.call('PUT', '/api/v1/reports/settings', { body: settings() })).status).toBe(200);
}, 180_000);
afterAll(async () => api.close());

const patch = (id: string, body: unknown, key = api.tenantA) => api.call('PATCH', `/api/v1/reports/${id}`, { body, key });

/** A case closed as reported, of a customer with complete records unless `record` takes some away. */
async function closedCase(n: number, record: Record<string, unknown> = {}, transactions = 1): Promise<string> {
  const account = `01000000${n}`;
  await api.engine.cdd.customers.create({ businessId }, customer(`cust${n}`, account, record));
  return reportedCase(api.engine, businessId, `cust${n}`, account, `STR-${n}`, transactions);
}

async function strOf(n: number, record: Record<string, unknown> = {}): Promise<{ caseId: string; report: any }> {
  const caseId = await closedCase(n, record);
  const res = await api.call('POST', '/api/v1/reports', { body: { caseId, actionTaken: 'Account restricted pending review.' } });
  expect(res.status).toBe(201);
  return { caseId, report: res.body.data };
}

/** The business's four-eyes policy, as two people set it. */
async function setPolicy(actions: string[]): Promise<void> {
  const { approvals } = api.engine;
  const request = await approvals.request(
    businessId,
    { kind: 'user', id: 'admin-1', name: 'Admin One' },
    {
      action: 'policy.change',
      subject: { kind: 'policy', id: 'four-eyes' },
      summary: 'Four eyes on approving reports',
      payload: { actions },
      reason: '',
    },
  );
  await approvals.decide(businessId, { kind: 'user', id: 'admin-2', name: 'Admin Two' }, request.request_id, true, '');
}

describe('goAML reports over the API', () => {
  it('refuses settings that name an unknown FIU or a bad field, naming it', async () => {
    const bad = await api.call('PUT', '/api/v1/reports/settings', { body: { ...settings(), rentityId: 0 } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('rentityId');
    const unknown = await api.call('PUT', '/api/v1/reports/settings', { body: { ...settings(), fiu: 'atlantis' } });
    expect(unknown).toMatchObject({ status: 400, body: { message: expect.stringContaining('fiu must be one of') } });
  });

  it("reports every transaction of a case's alerts", async () => {
    const caseId = await closedCase(7, {}, 3);
    const res = await api.call('POST', '/api/v1/reports', { body: { caseId } });
    expect(res.body.data).toMatchObject({ kind: 'str', caseId, missing: [], transactionCount: 3 });
    const text = (await api.call('GET', `/api/v1/reports/${res.body.data.id}/xml`)).body as string;
    expect(text.match(/<transaction>/g)).toHaveLength(3);
    expect(await validateAgainst(text, shippedSchema())).toEqual([]);
  });

  it("finds the STR's customer by the sending account when the user id is no CDD customer's", async () => {
    const account = '0100000091';
    await api.engine.cdd.customers.create({ businessId }, customer('cust91', account));
    const caseId = await reportedCase(api.engine, businessId, 'app-user-91', account, 'STR-91');
    const res = await api.call('POST', '/api/v1/reports', { body: { caseId, actionTaken: 'Account restricted pending review.' } });
    expect(res.body.data).toMatchObject({ kind: 'str', missing: [] });
    const text = (await api.call('GET', `/api/v1/reports/${res.body.data.id}/xml`)).body as string;
    expect(text).toContain('<t_from_my_client>');
    expect(text).toContain(`<account>${account}</account>`);
  });

  it("writes dates in the business's local time, and a foreign-currency transaction with its own amount and rate", async () => {
    const account = '0100000092';
    await api.engine.cdd.customers.create({ businessId }, customer('cust92', account));
    // 23:30 UTC on the 26th is 00:30 on the 27th at the settings' offset (+60 minutes, West Africa Time).
    const caseId = await reportedCase(api.engine, businessId, 'cust92', account, 'STR-92', 1, {
      amount: 5000,
      currency: 'USD',
      exchangeRate: 1450.5,
      transactionDate: '2026-11-26T23:30:00Z',
    });
    const res = await api.call('POST', '/api/v1/reports', { body: { caseId, actionTaken: 'Account restricted pending review.' } });
    expect(res.body.data).toMatchObject({ kind: 'str', missing: [] });
    const text = (await api.call('GET', `/api/v1/reports/${res.body.data.id}/xml`)).body as string;
    expect(text).toContain('<date_transaction>2026-11-27T00:30:00</date_transaction>');
    expect(text).toContain('<amount_local>7252500</amount_local>');
    expect(text.replace(/\s+/g, '')).toContain(
      '<from_foreign_currency><foreign_currency_code>USD</foreign_currency_code><foreign_amount>5000</foreign_amount><foreign_exchange_rate>1450.5</foreign_exchange_rate></from_foreign_currency>',
    );
    expect(text).toContain('<to_foreign_currency>');
    expect(await validateAgainst(text, shippedSchema())).toEqual([]);
  });

  it('drafts an STR that validates against the shipped schema, and takes it to acknowledged', async () => {
    const { caseId, report } = await strOf(1);
    expect(report).toMatchObject({ kind: 'str', status: 'draft', caseId, version: 1, missing: [], transactionCount: 1 });
    const xml = await api.call('GET', `/api/v1/reports/${report.id}/xml`);
    expect(xml.status).toBe(200);
    expect(xml.headers.get('content-type')).toContain('application/xml');
    const text = xml.body as string;
    expect(await validateAgainst(text, shippedSchema())).toEqual([]);
    expect(text).toContain('<t_from_my_client>');
    expect(text).toContain('<t_to>');
    expect(text).toContain('<first_name>Adebayo</first_name>');
    expect(text).toContain('<action>Account restricted pending review.</action>');
    expect(text).toMatch(/<reason>[^<]*Rules fired: [^<]+<\/reason>/);

    expect((await patch(report.id, { action: 'submit' })).status).toBe(409);
    expect((await patch(report.id, { action: 'approve' })).body.data).toMatchObject({ status: 'approved' });
    expect((await patch(report.id, { action: 'approve' })).status).toBe(409);
    expect((await patch(report.id, { action: 'acknowledge', fiuReference: 'NFIU-1' })).status).toBe(409);
    expect((await patch(report.id, { action: 'submit', via: 'sent' })).body.data).toMatchObject({
      status: 'submitted',
      submittedVia: 'sent',
    });
    const acked = await patch(report.id, { action: 'acknowledge', fiuReference: 'NFIU-2026-000123' });
    expect(acked.body.data).toMatchObject({ status: 'acknowledged', fiuReference: 'NFIU-2026-000123' });
    expect((await patch(report.id, { action: 'reject', reason: 'late' })).status).toBe(409);
    expect((await patch(report.id, { action: 'redraft' })).status).toBe(409);

    // The case already has a report that stands; another tenant sees none of it.
    expect((await api.call('POST', '/api/v1/reports', { body: { caseId } })).status).toBe(409);
    expect((await api.call('GET', `/api/v1/reports/${report.id}`, { key: api.tenantB })).status).toBe(404);
    const listed = await api.call('GET', `/api/v1/reports?caseId=${caseId}`);
    expect(listed.body.data).toMatchObject({ total: 1, reports: [{ id: report.id, status: 'acknowledged' }] });
  }, 120_000);

  it('lists the mandatory data a customer lacks by field, refuses approval and download until it is filled in', async () => {
    const { report } = await strOf(2, { ninNumber: undefined, kycDocuments: undefined });
    const idNumber = expect.stringMatching(/t_person\.id_number$/);
    expect(report.missing).toEqual(
      expect.arrayContaining([
        { field: idNumber, message: expect.stringContaining('customer cust2 has no identification number') },
        { field: expect.stringMatching(/t_person\.identification$/), message: expect.stringContaining('no identity document') },
      ]),
    );
    const refused = await patch(report.id, { action: 'approve' });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/t_person\.id_number \(customer cust2 has no identification number/);
    expect((await api.call('GET', `/api/v1/reports/${report.id}/xml`)).status).toBe(400);

    await api.engine.cdd.customers.update({ businessId }, 'cust2', {
      ninNumber: '98765432101',
      kycDocuments: customer('x', 'y').kycDocuments,
    });
    const redrafted = await patch(report.id, { action: 'redraft' });
    expect(redrafted.body.data).toMatchObject({ status: 'draft', missing: [], missingCount: 0 });
    expect((await patch(report.id, { action: 'approve' })).body.data.status).toBe('approved');
  }, 120_000);

  it('takes a second person to approve under four eyes, and a rejected report is corrected by a new version', async () => {
    const { caseId, report } = await strOf(3);
    await setPolicy(['report.approve']);
    try {
      expect((await patch(report.id, { action: 'approve' })).status).toBe(403);
      const second = await api.engine.auth.issue({ name: 'second', businessId });
      expect((await patch(report.id, { action: 'approve' }, second)).body.data).toMatchObject({ status: 'approved' });
    } finally {
      await setPolicy([]);
    }
    await patch(report.id, { action: 'submit' });
    const rejected = await patch(report.id, { action: 'reject', reason: 'Counterparty bank code is wrong', fiuReference: 'NFIU-REJ-9' });
    expect(rejected.body.data).toMatchObject({ status: 'rejected', rejectionReason: 'Counterparty bank code is wrong' });

    const other = await api.call('POST', '/api/v1/reports', { body: { caseId: await closedCase(4), correctionOf: report.id } });
    expect(other).toMatchObject({ status: 400, body: { message: expect.stringContaining('correctionOf') } });
    const corrected = await api.call('POST', '/api/v1/reports', { body: { caseId, correctionOf: report.id } });
    expect(corrected.status).toBe(201);
    expect(corrected.body.data).toMatchObject({ version: 2, correctionOf: report.id, status: 'draft' });
    const xml = await api.call('GET', `/api/v1/reports/${corrected.body.data.id}/xml`);
    expect(String(xml.body)).toContain('<prev_rejected_ref_number>NFIU-REJ-9</prev_rejected_ref_number>');
    expect((await api.call('POST', '/api/v1/reports', { body: { caseId, correctionOf: report.id } })).status).toBe(409);
  }, 180_000);

  it('gives one draft and a 409 when two requests draft the same case at once', async () => {
    const caseId = await closedCase(8);
    const both = await Promise.all([1, 2].map(() => api.call('POST', '/api/v1/reports', { body: { caseId } })));
    expect(both.map((r) => r.status).sort()).toEqual([201, 409]);
    const drafted = both.find((r) => r.status === 201)!.body.data.id;
    expect(both.find((r) => r.status === 409)!.body.message).toContain(`Report ${drafted} already reports this case`);
    const listed = await api.call('GET', `/api/v1/reports?caseId=${caseId}`);
    expect(listed.body.data).toMatchObject({ total: 1, reports: [{ id: drafted }] });
  }, 120_000);

  it('refuses an STR of a case that is not closed as reported', async () => {
    const open = await api.engine.cases.create(
      { businessId },
      { module: 'aml', record: { id: 'x1', type: 'customer', name: 'X' }, title: 'Open', description: '', priority: 'low' },
    );
    const res = await api.call('POST', '/api/v1/reports', { body: { caseId: open._id } });
    expect(res).toMatchObject({ status: 409, body: { message: expect.stringContaining('only a case closed as reported') } });
    expect((await api.call('POST', '/api/v1/reports', { body: { caseId: 'nope' } })).status).toBe(404);
  });
});

it('shows in docs/reports.md a sample STR that validates against the schema with the NFIU code lists', async () => {
  const doc = readFileSync(new URL('../../docs/reports.md', import.meta.url), 'utf8');
  const sample = /```xml\n([\s\S]*?)```/.exec(doc)?.[1];
  expect(sample).toContain('<report_code>STR</report_code>');
  expect(await validateAgainst(sample!, schemaForFiu(shippedSchema(), loadFius().get('nfiu')!))).toEqual([]);
  expect(await validateAgainst(sample!, shippedSchema())).toEqual([]);
  // The shipped schema's own lists have no CTR: the NFIU's threshold report code is the configuration's.
  expect(
    await validateAgainst(sample!.replace('<report_code>STR</report_code>', '<report_code>CTR</report_code>'), shippedSchema()),
  ).not.toEqual([]);
});
