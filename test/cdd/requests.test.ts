import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApi, type TestApi } from '../helpers.js';
import { corporate, individual, person, sanctioned } from './fixtures.js';

let api: TestApi;
beforeAll(async () => {
  api = await testApi();
  await api.call('POST', '/api/v1/cdd/customers', { body: individual('ind-1') });
  await api.call('POST', '/api/v1/cdd/customers', { body: corporate('corp-1') });
  await api.call('POST', '/api/v1/cdd/customers', { body: individual('ofac-1', { ...sanctioned, accounts: [], kycDocuments: [] }) });
});
afterAll(() => api.close());

const start = (customerUniqueId: string, workflowSlug: string, key = api.tenantA) =>
  api.call('POST', '/api/v1/cdd/process', { body: { customerUniqueId, workflowSlug }, key });

describe('workflows and requests', () => {
  it('lists the shipped workflows', async () => {
    const res = await api.call('GET', '/api/v1/cdd/workflows');
    expect(res.body.data.map((w: { slug: string }) => w.slug).sort()).toEqual(['corporate-standard', 'individual-standard']);
  });

  it('runs an individual request: identity checks against the registry, screening, completed with a risk level', async () => {
    const res = await start('ind-1', 'individual-standard');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'not started', type: 'individual' });
    const requestId = res.body.data.requestId;
    expect(await api.engine.cdd.runPending()).toBe(1);
    const list = await api.call('GET', '/api/v1/cdd-request/customers/ind-1');
    expect(list.body).toMatchObject({ count: 1, pageNumber: 1 });
    const item = list.body.data[0];
    expect(item).toMatchObject({
      _id: requestId,
      type: 'individual',
      status: 'completed',
      name: `${person.firstName} ${person.middleName} ${person.lastName}`.replace('  ', ' '),
    });
    expect(item.workflow).toMatchObject({ slug: 'individual-standard', name: 'Individual standard due diligence' });
    expect(item.overallRiskLevel).toMatchObject({ request: requestId, history: [{ request: requestId }] });
    const { checks } = (await api.call('GET', '/api/v1/cdd/customers/ind-1')).body.data;
    expect(Object.keys(checks).sort()).toEqual(['adverse media', 'bvn', 'nin', 'pep', 'sanctions', 'voters card']);
    expect(checks.bvn.checkId).toBe('bvn');
    expect(checks.bvn.results.map((r: { name: string; result: string }) => [r.name, r.result])).toEqual([
      ['compareNames', 'success'],
      ['compareDateOfBirth', 'success'],
      ['compareGender', 'success'],
    ]);
    expect(checks.bvn.results[1].values).toEqual([person.dob, person.dob]);
    expect(checks.pep.results[0]).toMatchObject({ name: 'pepCheck', status: 'completed', result: 'success' });
  });

  it('gives a failed result with a note for a number the registry does not hold', async () => {
    await api.call('PATCH', '/api/v1/cdd/customers/ind-1', { body: { ninNumber: '00000000000' } });
    await start('ind-1', 'individual-standard');
    await api.engine.cdd.runPending();
    const { checks } = (await api.call('GET', '/api/v1/cdd/customers/ind-1')).body.data;
    expect(checks.nin.results[0]).toMatchObject({
      result: 'failed',
      note: 'No nin record found for 00000000000',
      values: [expect.any(String), null],
    });
    const list = await api.call('GET', '/api/v1/cdd-request/customers/ind-1?page=1&limit=1');
    expect(list.body).toMatchObject({ count: 2, pageNumber: 1 });
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0].overallRiskLevel.history).toHaveLength(2);
  });

  it('runs a corporate request with tin and cac checks and per-person checks', async () => {
    await start('corp-1', 'corporate-standard');
    await api.engine.cdd.runPending();
    const data = (await api.call('GET', '/api/v1/cdd/customers/corp-1')).body.data;
    expect(Object.keys(data.checks).sort()).toEqual(['adverse media', 'cac', 'sanctions', 'tin']);
    expect(data.checks.cac.results.every((r: { result: string }) => r.result === 'success')).toBe(true);
    expect(data.checks.tin.results.map((r: { name: string }) => r.name)).toEqual(['compareNames', 'compareRegistrationNumber']);
    expect(Object.keys(data.directors[0].checks).sort()).toEqual(['adverse media', 'bvn', 'pep', 'sanctions']);
    expect(data.directors[0].checks.bvn.results[0].result).toBe('success');
    expect(Object.keys(data.signatories[0].checks).sort()).toEqual(['bvn', 'pep']);
  });

  it('takes a sanctioned name to awaiting confirmation; confirming it links, flags, rates and opens a case', async () => {
    const requestId = (await start('ofac-1', 'individual-standard')).body.data.requestId;
    await api.engine.cdd.runPending();
    const list = await api.call('GET', '/api/v1/cdd-request/customers/ofac-1');
    expect(list.body.data[0].status).toBe('awaiting confirmation');
    const matches = await api.call('GET', `/api/v1/cdd-request/${requestId}/matches?keys=sanctions`);
    expect(Object.keys(matches.body.data).sort()).toEqual(['_id', 'sanctions', 'type']);
    const sanctions = matches.body.data.sanctions as { _id: string; name: string; type: string; reviewStatus: string }[];
    const index = sanctions.findIndex((m) => /zawahiri/i.test(m.name));
    expect(index).toBeGreaterThanOrEqual(0);
    expect(sanctions[index]).toMatchObject({ type: 'sanction', reviewStatus: 'pending' });

    const outOfRange = await api.call('PUT', `/api/v1/cdd-request/${requestId}/matches`, {
      body: { type: 'sanctions', status: 'found', index: 99 },
    });
    expect(outOfRange.status).toBe(400);
    expect(outOfRange.body.message).toMatch(/index 99 is out of range/);
    const badType = await api.call('PUT', `/api/v1/cdd-request/${requestId}/matches`, {
      body: { type: 'ofac', status: 'found', index: 0 },
    });
    expect(badType.body.message).toBe('type must be one of: pep, sanctions, adverseMedia');

    const confirm = await api.call('PUT', `/api/v1/cdd-request/${requestId}/matches`, {
      body: { type: 'sanctions', status: 'found', index },
    });
    expect(confirm).toMatchObject({ status: 200, body: { data: { _id: requestId, type: 'individual' } } });
    // A correction needs a reason; the same status again is no correction.
    const unexplained = await api.call('PUT', `/api/v1/cdd-request/${requestId}/matches`, {
      body: { type: 'sanctions', status: 'not found', index },
    });
    expect(unexplained).toMatchObject({ status: 400, body: { message: expect.stringMatching(/^note is required to correct a review/) } });
    const same = await api.call('PUT', `/api/v1/cdd-request/${requestId}/matches`, { body: { type: 'sanctions', status: 'found', index } });
    expect(same).toMatchObject({
      status: 409,
      body: { message: expect.stringMatching(`sanctions match ${index} was already reviewed as found`) },
    });
    const reviewed = (await api.call('GET', `/api/v1/cdd-request/${requestId}/matches?keys=sanctions`)).body.data.sanctions;
    expect(reviewed[index]).toMatchObject({
      reviewStatus: 'found',
      // A key bound to no user is named as itself, the same way in the event, here and in the case log.
      reviewedBy: `apikey:${api.tenantA.apiKey}`,
      reviewedByName: 'API key tenant-a',
      reviewDate: expect.stringMatching(/Z$/),
      confirmedAt: reviewed[index].reviewDate,
    });
    // One person on several lists is one match now, so the others may be none; any left unreviewed says so.
    for (const other of reviewed.filter((_: unknown, i: number) => i !== index))
      expect(other).toMatchObject({ reviewStatus: 'pending', reviewedBy: null, reviewDate: null, confirmedAt: null });

    const { customer, customerRiskSummary } = (await api.call('GET', '/api/v1/cdd/customers/ofac-1')).body.data;
    expect(customer).toMatchObject({
      isSanctioned: true,
      sanctionId: sanctions[index]!._id,
      sanctionConfirmedAt: expect.stringMatching(/Z$/),
    });
    expect(customer.sanctions).toMatchObject({ _id: sanctions[index]!._id, confirmedAt: customer.sanctionConfirmedAt });
    expect(customerRiskSummary).toMatchObject({ overallRating: 'high', overallDecision: 2, autoHighRiskCategories: ['sanctions'] });

    const cases = await api.call('GET', '/api/v1/case-management/listing');
    const opened = cases.body.data.cases.find((c: { record: { id: string } }) => c.record.id === 'ofac-1');
    expect(opened).toMatchObject({ module: 'cdd', record: { type: 'customer' }, priority: 'high' });

    // The remaining matches decided as not found complete the request.
    const all = (await api.call('GET', `/api/v1/cdd-request/${requestId}/matches`)).body.data;
    for (const kind of ['pep', 'sanctions', 'adverseMedia'] as const) {
      for (const [i, m] of ((all[kind] ?? []) as { reviewStatus: string }[]).entries()) {
        if (m.reviewStatus === 'pending')
          await api.call('PUT', `/api/v1/cdd-request/${requestId}/matches`, { body: { type: kind, status: 'not found', index: i } });
      }
    }
    const done = (await api.call('GET', '/api/v1/cdd-request/customers/ofac-1')).body.data[0];
    expect(done.status).toBe('completed');
    expect(done.overallRiskLevel.riskScore).toBe(100);
  });

  it('corrects a review with a note, keeps the history, withdraws the confirmation and proves each review', async () => {
    await api.call('POST', '/api/v1/cdd/customers', { body: individual('ofac-2', { ...sanctioned, accounts: [], kycDocuments: [] }) });
    const requestId = (await start('ofac-2', 'individual-standard')).body.data.requestId;
    await api.engine.cdd.runPending();
    const sanctions = (await api.call('GET', `/api/v1/cdd-request/${requestId}/matches?keys=sanctions`)).body.data.sanctions;
    const index = sanctions.findIndex((m: { name: string }) => /zawahiri/i.test(m.name));
    const put = (body: object) =>
      api.call('PUT', `/api/v1/cdd-request/${requestId}/matches`, { body: { type: 'sanctions', index, ...body } });

    expect((await put({ status: 'found', note: 'Same date of birth and nationality' })).status).toBe(200);
    expect((await api.call('GET', '/api/v1/cdd/customers/ofac-2')).body.data.customer.isSanctioned).toBe(true);
    const corrected = await put({ status: 'not found', note: 'Passport shows a different date of birth' });
    expect(corrected.status).toBe(200);

    const match = (await api.call('GET', `/api/v1/cdd-request/${requestId}/matches?keys=sanctions`)).body.data.sanctions[index];
    const by = `apikey:${api.tenantA.apiKey}`;
    expect(match).toMatchObject({
      reviewStatus: 'not found',
      reviewNote: 'Passport shows a different date of birth',
      reviewedBy: by,
      reviewedByName: 'API key tenant-a',
      confirmedAt: null,
    });
    expect(match.reviewHistory).toEqual([
      { from: null, to: 'found', by, byName: 'API key tenant-a', at: expect.any(String), note: 'Same date of birth and nationality' },
      {
        from: 'found',
        to: 'not found',
        by,
        byName: 'API key tenant-a',
        at: expect.any(String),
        note: 'Passport shows a different date of birth',
      },
    ]);
    // The correction takes the confirmation back, and the risk with it.
    const { customer } = (await api.call('GET', '/api/v1/cdd/customers/ofac-2')).body.data;
    expect(customer.isSanctioned).toBeFalsy();

    // The case the first review opened is logged as the key's, by name, like the review.
    const cases = (await api.call('GET', '/api/v1/case-management/listing')).body.data.cases;
    const opened = cases.find((c: { record: { id: string } }) => c.record.id === 'ofac-2');
    const full = (await api.call('GET', `/api/v1/case-management/case/${opened._id}`)).body.data;
    expect(full.log[0].user).toEqual({ _id: by, firstName: 'API key', lastName: 'tenant-a' });

    // Each review can be proven: the latest by default, an earlier one by its place in the history.
    const latest = await api.call('GET', `/api/v1/cdd-request/${requestId}/matches/proof?type=sanctions&index=${index}`);
    expect(latest.status).toBe(200);
    expect(latest.body.data.event).toMatchObject({
      type: 'CddMatchReviewed',
      data: { status: 'not found', previousStatus: 'found', reviewedBy: by },
    });
    const first = await api.call('GET', `/api/v1/cdd-request/${requestId}/matches/proof?type=sanctions&index=${index}&review=0`);
    expect(first.body.data.event.data).toMatchObject({ status: 'found', note: 'Same date of birth and nationality' });
    const none = await api.call('GET', `/api/v1/cdd-request/${requestId}/matches/proof?type=sanctions&index=${index}&review=5`);
    expect(none).toMatchObject({ status: 404, body: { message: `sanctions match ${index} has 2 review(s); there is no review 5` } });
  });

  it('answers unknown customers, workflows and requests with 404, and other tenants likewise', async () => {
    expect((await start('nobody', 'individual-standard')).body.message).toBe('Customer nobody not found');
    expect((await start('ind-1', 'nope')).body).toMatchObject({ error: 404, message: 'Workflow nope not found' });
    expect((await start('ind-1', 'corporate-standard')).status).toBe(400);
    expect((await start('ind-1', 'individual-standard', api.tenantB)).status).toBe(404);
    expect((await api.call('GET', '/api/v1/cdd-request/customers/ind-1', { key: api.tenantB })).status).toBe(404);
    const requestId = (await api.call('GET', '/api/v1/cdd-request/customers/ind-1')).body.data[0]._id;
    expect((await api.call('GET', `/api/v1/cdd-request/${requestId}/matches`, { key: api.tenantB })).status).toBe(404);
    expect((await api.call('GET', `/api/v1/cdd-request/${requestId}/matches?keys=pep,ofac`)).body.message).toMatch(/^keys must be/);
    const repeated = await api.call('GET', `/api/v1/cdd-request/${requestId}/matches?keys=pep&keys=sanctions`);
    expect(Object.keys(repeated.body.data).sort()).toEqual(['_id', 'pep', 'sanctions', 'type']);
    const unsaid = await api.call('PUT', `/api/v1/cdd-request/${requestId}/matches`, { body: {} });
    expect(unsaid.body.message).toBe('type is required; status is required; index is required');
    const missing = await api.call('POST', '/api/v1/cdd/process', { body: { workflowSlug: 'x' } });
    expect(missing.body.message).toBe('customerUniqueId is required');
  });
});

describe('kyc/cac', () => {
  it('looks up the company registry', async () => {
    const { company } = await import('./fixtures.js');
    const res = await api.call('POST', '/api/v1/kyc/cac', {
      body: { rcNumber: company.record.registrationNumber, companyName: 'x', companyType: 'RC' },
    });
    expect(res).toMatchObject({ status: 200, body: { data: { businessName: company.record.businessName, affiliates: 2 } } });
    expect((await api.call('POST', '/api/v1/kyc/cac', { body: { companyName: 'x' } })).body).toEqual({ message: 'rcNumber is required' });
    expect((await api.call('POST', '/api/v1/kyc/cac', { body: { rcNumber: '1', bogus: 1 } })).body).toEqual({
      message: 'body has unknown field(s): bogus',
    });
    const missing = await api.call('POST', '/api/v1/kyc/cac', { body: { rcNumber: '1', companyType: 'RC' } });
    expect(missing).toMatchObject({ status: 404, body: { message: 'No RC company found with number 1' } });
  });
});
