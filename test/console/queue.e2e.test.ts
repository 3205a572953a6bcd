import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { CasePriority } from '../../src/cases/index.js';
import { chromiumAvailable, type ConsoleRig, type Person, see, shot, startRig } from './browser.js';

const base = JSON.parse(readFileSync('rules/test-base.json', 'utf8'));
let seq = 0;

/** A flagged transaction (above the individual limit) of its own customer and account. */
function flagged(changes: { uniqueId: string; name?: string; amount?: number; currency?: string; at?: string; counterparty?: string }) {
  const tx = structuredClone(base);
  tx.transactionData.reference = `TX-Q-${Date.now()}-${++seq}`;
  tx.transactionData.senderAccount = String(2_000_000_000 + seq);
  tx.transactionData.amount = changes.amount ?? 600_000;
  if (changes.currency) tx.transactionData.currency = changes.currency;
  if (changes.at) tx.transactionData.transactionDate = changes.at;
  tx.anonymizedUserData.uniqueId = changes.uniqueId;
  if (changes.name) tx.anonymizedUserData.name = changes.name;
  if (changes.counterparty)
    tx.counterpartyData = { name: changes.counterparty, accountNumber: `77${seq}`, bankName: 'First Bank', country: 'NG' };
  return tx;
}

describe.runIf(chromiumAvailable())('working the queue in Chromium', { timeout: 180_000 }, () => {
  let rig: ConsoleRig;
  let ann: Person;
  const clock = new ManualClock('2026-03-01T00:00:00.000Z');

  beforeAll(async () => {
    rig = await startRig({ clock });
    ann = await rig.person('qbank', 'analyst', 'Ann', 'Analyst');
  }, 120_000);
  afterAll(async () => rig?.close());

  it("shows each alert's facts: amount with its currency, time in the business's zone, counterparty, namesakes apart, list hits", async () => {
    await rig.engine.cases.changeSettings({ businessId: 'qbank' }, { timeZone: 'Asia/Tokyo' });
    await rig.engine.monitoring.addToBlacklist({ businessId: 'qbank' }, 'users', 'cust-obi-2');
    const first = await rig.engine.decide(
      flagged({
        uniqueId: 'cust-obi-1',
        name: 'Ada Obi',
        amount: 1_234_567.5,
        at: '2026-03-01T23:30:00.000Z',
        counterparty: 'Chinedu Okeke',
      }),
      { businessId: 'qbank' },
    );
    await rig.engine.decide(flagged({ uniqueId: 'cust-obi-2', name: 'Ada Obi', amount: 600_000, currency: 'usd' }), {
      businessId: 'qbank',
    });
    const caseId = (await rig.engine.monitoring.getTransaction('qbank', first.transactionId)).caseId!;

    const { context, page } = await rig.signedIn(ann);
    await page.goto('/console/queue');
    const queue = page.getByRole('table', { name: /cases?/ });
    await see(queue.getByRole('columnheader', { name: 'Latest alert (Asia/Tokyo)' }));
    // Two customers of one name, told apart by their ids.
    await see(queue.getByRole('cell', { name: 'user: Ada Obi (cust-obi-1)' }));
    await see(queue.getByRole('cell', { name: 'user: Ada Obi (cust-obi-2)' }));
    await see(queue.getByRole('cell', { name: 'NGN 1,234,567.50' }));
    await see(queue.getByRole('cell', { name: 'USD 600,000.00' }));
    // 23:30 UTC is 08:30 the next day in Tokyo.
    await see(queue.getByRole('cell', { name: '2026-03-02 08:30' }));
    await see(queue.getByRole('cell', { name: /Chinedu Okeke \(77\d+\) · First Bank, NG/ }));
    await shot(page, 'queue-facts');

    await page.goto(`/console/cases/${caseId}`);
    const alerts = page.getByRole('table', { name: /Decisions that were not approved/ });
    await see(alerts.getByRole('columnheader', { name: 'When (Asia/Tokyo)' }));
    await see(alerts.getByRole('cell', { name: 'NGN 1,234,567.50' }));
    await see(alerts.getByRole('cell', { name: '2026-03-02 08:30' }));
    await see(alerts.getByRole('cell', { name: /Chinedu Okeke .* bank transfer/ }));
    await see(page.getByText('user: Ada Obi (cust-obi-1)'));

    // The blacklisted namesake's case names the list entry its alert hit.
    const listed = await rig.engine.cases.list('qbank', { recordId: 'cust-obi-2' }, { page: 1, limit: 1 });
    await page.goto(`/console/cases/${listed.cases[0]!._id}`);
    await see(page.getByRole('cell', { name: /User: cust-obi-2/ }));
    await context.close();
  });

  it('works the queue: due by priority, the overdue filter and sort, next case, search, and a case paging its alerts', async () => {
    const biz = 'qwork';
    const amy = await rig.person(biz, 'analyst', 'Amy', 'Analyst');
    await rig.engine.cases.changeSettings({ businessId: biz }, { dueHours: { critical: 4, high: 24, medium: 72, low: 240 } });
    clock.set('2026-03-01T00:00:00.000Z');
    const open = (title: string, priority: CasePriority, dueDate?: string) =>
      rig.engine.cases.create(
        { businessId: biz },
        { module: 'aml', record: { type: 'customer', id: `c-${title}`, name: title }, title, description: '', priority, dueDate },
      );
    // Due: Crit 03-01 04:00 (by hours), HighOwn 03-01 12:00 (its own), High 03-02 00:00, Med 03-04, Low 03-11.
    const low = await open('Low', 'low');
    const med = await open('Med', 'medium');
    const high = await open('High', 'high');
    const highOwn = await open('HighOwn', 'high', '2026-03-01T12:00:00.000Z');
    const crit = await open('Crit', 'critical');
    clock.set('2026-03-01T18:00:00.000Z');

    const { context, page } = await rig.signedIn(amy);
    await page.goto('/console/queue?sort=due');
    const titles = async () =>
      page
        .getByRole('table', { name: /cases?$/ })
        .locator('tbody tr td:nth-child(2) a')
        .allInnerTexts();
    expect(await titles()).toEqual(['Crit', 'HighOwn', 'High', 'Med', 'Low']);
    await see(page.getByRole('cell', { name: '2026-03-01 04:00 overdue' }));
    await page.getByLabel('Overdue only').check();
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/overdue=1/);
    expect(await titles()).toEqual(['Crit', 'HighOwn']);
    await shot(page, 'queue-overdue');

    // Next case: by priority, then due time; each one taken is assigned to the taker and gone from the waiting.
    const taken: string[] = [];
    for (let i = 0; i < 5; i++) {
      await page.goto('/console/queue');
      await page.getByRole('button', { name: 'Next case' }).click();
      await page.waitForURL(/\/console\/cases\//);
      taken.push(page.url().split('/').at(-1)!);
      await see(page.getByText('Assigned to Amy Analyst'));
    }
    expect(taken).toEqual([crit._id, highOwn._id, high._id, med._id, low._id]);
    await page.goto('/console/queue');
    await page.getByRole('button', { name: 'Next case' }).click();
    await see(page.getByText('No case is waiting: every active case is assigned.'));
    await context.close();
  });

  it('finds cases by transaction reference, account number and customer name', async () => {
    const tx = flagged({ uniqueId: 'cust-find-1', name: 'Grace Hopper' });
    const found = await rig.engine.decide(tx, { businessId: 'qbank' });
    const other = await rig.engine.decide(flagged({ uniqueId: 'cust-find-2', name: 'Alan Turing' }), { businessId: 'qbank' });
    const caseOf = async (id: string) => (await rig.engine.monitoring.getTransaction('qbank', id)).caseId!;
    const [mine, theirs] = [await caseOf(found.transactionId), await caseOf(other.transactionId)];
    const { context, page } = await rig.signedIn(ann);
    const search = async (text: string) => {
      await page.goto('/console/queue');
      await page.getByLabel('Reference, account or name').fill(text);
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/q=/);
      return page.locator('tbody a[href^="/console/cases/"]').evaluateAll((links) => links.map((a) => a.getAttribute('href')));
    };
    expect(await search(tx.transactionData.reference)).toEqual([`/console/cases/${mine}`]);
    expect(await search(tx.transactionData.senderAccount)).toEqual([`/console/cases/${mine}`]);
    expect(await search('alan tur')).toEqual([`/console/cases/${theirs}`]);
    expect(await search('no such thing')).toEqual([]);
    await see(page.getByText('No case matches these filters.'));
    await context.close();
  });

  it('pages the alerts of a case with many, and a page past the last shows the last', async () => {
    for (let i = 0; i < 53; i++) await rig.engine.decide(flagged({ uniqueId: 'cust-many', name: 'Many Alerts' }), { businessId: 'qpage' });
    const [k] = (await rig.engine.cases.list('qpage', { recordId: 'cust-many' }, { page: 1, limit: 1 })).cases;
    const paul = await rig.person('qpage', 'analyst', 'Paul', 'Pager');
    const { context, page } = await rig.signedIn(paul);
    await page.goto(`/console/cases/${k!._id}`);
    await see(page.getByRole('heading', { name: 'Alerts (53)' }));
    const rows = () =>
      page
        .getByRole('table', { name: /Decisions that were not approved/ })
        .locator('tbody tr')
        .count();
    expect(await rows()).toBe(50);
    await see(page.getByText('Page 1 of 2 (53 in all)'));
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Next' }).click();
    await page.waitForURL(/alerts=2/);
    expect(await rows()).toBe(3);
    await page.goto(`/console/cases/${k!._id}?alerts=9`);
    expect(await rows()).toBe(3);
    await context.close();
  });

  it('assigns and closes the selected cases at once, with one rationale; under the policy each closure waits for a second person', async () => {
    const biz = 'qbulk';
    const bea = await rig.person(biz, 'analyst', 'Bea', 'Bulk');
    const open = (title: string) =>
      rig.engine.cases.create(
        { businessId: biz },
        { module: 'aml', record: { type: 'customer', id: `c-${title}`, name: title }, title, description: '', priority: 'medium' },
      );
    const [one, two, three] = [await open('One'), await open('Two'), await open('Three')];
    const { context, page } = await rig.signedIn(bea);
    page.on('dialog', (dialog) => void dialog.accept());
    await page.goto('/console/queue');
    await page.getByLabel('Select One').check();
    await page.getByLabel('Select Two').check();
    await page.getByLabel('Action').selectOption('assign');
    await page.getByLabel('Assign to').selectOption(bea.userId);
    await page.getByRole('button', { name: 'Apply to selected' }).click();
    await see(page.getByText('2 cases changed'));
    const assignee = async (id: string) => (await rig.engine.cases.get(biz, id)).assignedTo?._id;
    expect([await assignee(one._id), await assignee(two._id), await assignee(three._id)]).toEqual([bea.userId, bea.userId, undefined]);

    // Closing takes a rationale.
    await page.getByLabel('Select One').check();
    await page.getByLabel('Action').selectOption('close');
    await page.getByRole('button', { name: 'Apply to selected' }).click();
    await see(page.getByText('rationale is required to close'));

    await page.goto('/console/queue');
    await page.getByLabel('Select One').check();
    await page.getByLabel('Select Two').check();
    await page.getByLabel('Action').selectOption('close');
    await page.getByLabel('Close as').selectOption('false positive');
    await page.getByLabel('Rationale (required to close)').fill('Payroll batch, known employer');
    await page.getByRole('button', { name: 'Apply to selected' }).click();
    await see(page.getByText('2 cases changed'));
    for (const k of [one, two]) {
      expect(await rig.engine.cases.closure(biz, k._id)).toMatchObject({ status: 'closed', disposition: 'false positive' });
      expect((await rig.engine.cases.get(biz, k._id)).comments.map((m) => m.text)).toEqual(['Payroll batch, known employer']);
    }

    // Under the policy, a bulk closure asks a second person, case by case.
    const admin = { kind: 'user' as const, id: 'qbulk-admin', name: 'Q Admin' };
    const policy = await rig.engine.approvals.request(biz, admin, {
      action: 'policy.change',
      subject: { kind: 'policy', id: 'four-eyes' },
      summary: 'Four eyes on closing',
      payload: { actions: ['case.close'] },
      reason: 'audit',
    });
    await rig.engine.approvals.decide(biz, { kind: 'user', id: 'qbulk-admin-2', name: 'Second' }, policy.request_id, true, '');
    await page.goto('/console/queue');
    await page.getByLabel('Select Three').check();
    await page.getByLabel('Action').selectOption('close');
    await page.getByLabel('Rationale (required to close)').fill('Duplicate of an earlier alert');
    await page.getByRole('button', { name: 'Apply to selected' }).click();
    await see(page.getByText('0 cases changed; 1 closure waiting for a second person'));
    expect((await rig.engine.cases.get(biz, three._id)).status).toBe('open');
    const [request] = await rig.engine.approvals.list(biz, { subject: { kind: 'case', id: three._id } });
    expect(request).toMatchObject({ action: 'case.close', status: 'pending', maker_id: bea.userId });
    await context.close();
  });

  it('changes the priority of the selected cases at once, and a queue page past the last shows the last', async () => {
    const biz = 'qprio';
    const pia = await rig.person(biz, 'analyst', 'Pia', 'Priority');
    const open = (title: string) =>
      rig.engine.cases.create(
        { businessId: biz },
        { module: 'aml', record: { type: 'customer', id: `c-${title}`, name: title }, title, description: '', priority: 'low' },
      );
    const cases = [];
    for (let i = 1; i <= 27; i++) cases.push(await open(`P${String(i).padStart(2, '0')}`));
    const { context, page } = await rig.signedIn(pia);
    page.on('dialog', (dialog) => void dialog.accept());
    await page.goto('/console/queue');
    await page.getByLabel('Select P27').check();
    await page.getByLabel('Select P26').check();
    await page.getByLabel('Action').selectOption('priority');
    await page.getByLabel('New priority').selectOption('critical');
    await page.getByRole('button', { name: 'Apply to selected' }).click();
    await see(page.getByText('2 cases changed'));
    const priorities = await Promise.all(cases.map(async (k) => (await rig.engine.cases.get(biz, k._id)).priority));
    expect(priorities.filter((p) => p === 'critical')).toHaveLength(2);
    expect(priorities.slice(-2)).toEqual(['critical', 'critical']);

    // 27 cases are two pages of 25: page 9 (an old link) goes to page 2, with its rows.
    await page.goto('/console/queue?page=9&sort=newest');
    await page.waitForURL(/page=2/);
    await see(page.getByText('Page 2 of 2 (27 in all)'));
    expect(await page.locator('tbody a[href^="/console/cases/"]').count()).toBe(2);
    await context.close();
  });
});
