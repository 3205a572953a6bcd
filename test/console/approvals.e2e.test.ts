import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.js';
import { chromiumAvailable, type ConsoleRig, type Person, see, shot, startRig } from './browser.js';

describe.runIf(chromiumAvailable())('the approvals inbox in Chromium', { timeout: 180_000 }, () => {
  let rig: ConsoleRig;
  let ada: Person;
  let abe: Person;
  let ann: Person;

  beforeAll(async () => {
    rig = await startRig();
    ada = await rig.person('acme', 'admin', 'Ada', 'Admin');
    abe = await rig.person('acme', 'admin', 'Abe', 'Second');
    ann = await rig.person('acme', 'analyst', 'Ann', 'Analyst');
  }, 120_000);
  afterAll(async () => rig?.close());

  it('takes a second person for the policy and for a list entry; the maker is refused by the console and the API', async () => {
    // Ada asks to put list changes under four eyes; she cannot approve her own request.
    const a = await rig.signedIn(ada);
    await a.page.goto('/console/admin');
    await a.page.getByLabel('Adding a list entry').check();
    await a.page.getByLabel('Removing a list entry').check();
    await a.page.getByLabel('Why (for the approver)').fill('Audit finding 12: blacklists changed by one person');
    await a.page.getByRole('button', { name: 'Ask to change the policy' }).click();
    await see(a.page.getByText('You asked for this: it takes effect when someone else approves it.'));
    expect(await a.page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    const policyUrl = a.page.url();
    const csrf = await a.page.locator('input[name=_csrf]').first().inputValue();
    const own = await a.page.request.post(policyUrl, { form: { decision: 'approve', reason: '', _csrf: csrf } });
    expect(own.status()).toBe(403);
    expect(await rig.engine.approvals.policy('acme')).toEqual(['policy.change']);

    // Abe sees the count in the navigation and on the dashboard, and approves with a reason.
    const b = await rig.signedIn(abe);
    await see(b.page.getByRole('link', { name: 'Approvals (1)' }));
    await see(b.page.getByRole('link', { name: '1 request waits for a second person' }));
    await b.page.getByRole('link', { name: 'Approvals (1)' }).click();
    await see(b.page.getByRole('cell', { name: 'Audit finding 12: blacklists changed by one person' }));
    await shot(b.page, 'approvals');
    await b.page
      .getByRole('table', { name: /Waiting for a second person/ })
      .getByRole('link')
      .first()
      .click();
    await b.page.getByLabel('Reason (required to reject)').fill('Agreed with the audit');
    await b.page.getByRole('button', { name: 'Approve' }).click();
    await see(b.page.locator('dd .badge.approved'));
    expect(await rig.engine.approvals.policy('acme')).toEqual(['list.add', 'list.remove', 'policy.change']);

    // Ann adds an account to the blacklist: it waits; she cannot approve it; Ada rejects it, then approves a second one.
    const n = await rig.signedIn(ann);
    await n.page.goto('/console/lists');
    await n.page.getByLabel('List', { exact: true }).selectOption('accounts');
    await n.page.getByLabel('Value', { exact: true }).fill('4440001');
    await n.page.getByLabel('Why', { exact: true }).fill('Mule account reported by the FIU');
    await n.page.getByRole('button', { name: 'Add to blacklist' }).click();
    await see(n.page.getByText('You asked for this'));
    const annCsrf = await n.page.locator('input[name=_csrf]').first().inputValue();
    expect((await n.page.request.post(n.page.url(), { form: { decision: 'approve', _csrf: annCsrf } })).status()).toBe(403);
    expect((await rig.engine.monitoring.listBlacklist('acme', 'accounts', { page: 1, limit: 10 })).total).toBe(0);

    await a.page.goto('/console/approvals');
    await a.page
      .getByRole('table', { name: /Waiting for a second person/ })
      .getByRole('link')
      .first()
      .click();
    await a.page.getByRole('button', { name: 'Reject' }).click();
    // A rejection without a reason is refused.
    await see(a.page.getByText('reason is required'));
    await a.page.goBack();
    await a.page.getByLabel('Reason (required to reject)').fill('Wrong account: the FIU named 4440011');
    await a.page.getByRole('button', { name: 'Reject' }).click();
    await see(a.page.locator('dd .badge.rejected'));
    await see(a.page.getByText('Wrong account: the FIU named 4440011', { exact: false }));
    expect((await rig.engine.monitoring.listBlacklist('acme', 'accounts', { page: 1, limit: 10 })).total).toBe(0);

    await n.page.goto('/console/lists');
    await n.page.getByLabel('List', { exact: true }).selectOption('accounts');
    await n.page.getByLabel('Value', { exact: true }).fill('4440011');
    await n.page.getByRole('button', { name: 'Add to blacklist' }).click();
    await see(n.page.getByText('You asked for this'));
    await a.page.goto(n.page.url().replace(rig.base, ''));
    await a.page.getByRole('button', { name: 'Approve' }).click();
    await see(a.page.locator('dd .badge.approved'));
    const list = await rig.engine.monitoring.listBlacklist('acme', 'accounts', { page: 1, limit: 10 });
    expect(list.entries.map((e) => e.value)).toEqual(['4440011']);

    // Through the API, Ann's own key makes Ann the maker: the console refuses her approval of it too.
    const annKey = await rig.engine.auth.issue({ name: 'ann-key', businessId: 'acme', userId: ann.userId });
    const app = createApp(rig.engine);
    const res = await app.request('/api/v1/transaction-monitoring/blacklist-account/4440011', {
      method: 'DELETE',
      headers: { apiKey: annKey.apiKey, apiSecret: annKey.apiSecret },
    });
    expect(res.status).toBe(202);
    const { data } = (await res.json()) as { data: { requestId: string; maker: string } };
    expect(data.maker).toBe('Ann Analyst');
    await n.page.goto(`/console/approvals/${data.requestId}`);
    await see(n.page.getByText('You asked for this'));
    expect((await n.page.request.post(n.page.url(), { form: { decision: 'approve', _csrf: annCsrf } })).status()).toBe(403);
    expect((await rig.engine.approvals.get('acme', data.requestId)).status).toBe('pending');
    for (const x of [a, b, n]) await x.context.close();
  });
});
