// The analysts' loop in Chromium: rule performance and a shadow ruleset's report render with real data, and
// publishing the shadow goes through the four-eyes policy with two administrators.
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { tx } from '../monitoring/fixtures.js';
import { chromiumAvailable, type ConsoleRig, LAYOUT_PROBE, type Person, see, shot, startRig } from './browser.js';

const rules = (threshold: string) =>
  `
rule BIG "Big" when transactionData.amount >= ${threshold} score 50 reason P1 high "big" end
rule NIGHT "Night" when contains(transactionData.narration, "night") score 50 reason P2 high "night" end
decide review at 40 otherwise approved end
`.replace(/ (when|score|reason|end|review|otherwise)/g, '\n  $1');

const BIZ = 'acme';
const HOUR = 3_600_000;

describe.runIf(chromiumAvailable())("the analysts' loop in Chromium", { timeout: 240_000 }, () => {
  let rig: ConsoleRig;
  let rulesDir: string;
  let ada: Person;
  let abe: Person;
  let ann: Person;
  const clock = new ManualClock('2026-03-02T08:00:00.000Z');
  let n = 0;
  const decide = async (amount: number, narration = 'rent') => {
    const i = ++n;
    const body = tx(`AN-${i}`, {
      transactionData: { amount, narration, senderAccount: `02000000${String(i % 50).padStart(2, '0')}` },
      anonymizedUserData: { uniqueId: `cust-${i}` },
      device: { deviceId: `dev-${i}` },
    });
    const decision = await rig.engine.monitoring.decide({ businessId: BIZ }, body);
    return (await rig.engine.monitoring.getTransaction(BIZ, decision.transactionId)).caseId;
  };

  beforeAll(async () => {
    rulesDir = await mkdtemp(join(tmpdir(), 'analysts-rules-'));
    await cp(join(import.meta.dirname, '..', '..', 'rules'), rulesDir, {
      recursive: true,
      filter: (p) => !/\.(rules|test\.json)$/.test(p) || p.includes('customer-risk'),
    });
    await writeFile(join(rulesDir, 'loop.rules'), rules('1_000_000'));
    rig = await startRig({ rulesDir, clock, workerIntervalMs: 0 });
    ada = await rig.person(BIZ, 'admin', 'Ada', 'Admin');
    abe = await rig.person(BIZ, 'admin', 'Abe', 'Second');
    ann = await rig.person(BIZ, 'analyst', 'Ann', 'Analyst');
  }, 120_000);
  afterAll(async () => {
    await rig?.close();
    if (rulesDir) await rm(rulesDir, { recursive: true, force: true });
  });

  it("shows each rule's performance from the cases it raised", async () => {
    // 2026-03-02: BIG raises three cases (one false positive, one reported, one left open), NIGHT one false positive.
    const [big1, big2] = [await decide(2_000_000), await decide(3_000_000)];
    await decide(1_500_000);
    const night = await decide(25_000, 'night');
    const actor = { businessId: BIZ, userId: ann.userId };
    await rig.engine.cases.closeWithDisposition(actor, big1!, 'false positive');
    await rig.engine.cases.closeWithDisposition(actor, big2!, 'reported');
    await rig.engine.cases.closeWithDisposition(actor, night!, 'false positive');

    const { context, page } = await rig.signedIn(ann);
    await page.goto('/console/rules/performance?from=2026-03-02&to=2026-03-02');
    const table = page.getByRole('table', { name: 'Rules, most false positives first' });
    await see(table);
    const row = async (rule: string) =>
      (
        await table
          .getByRole('row')
          .filter({ has: page.getByRole('cell', { name: rule, exact: true }) })
          .allInnerTexts()
      )[0]!.split('\t');
    // Rule, hits, alerts, cases, closed, false positive, reported, customer exited, no further action, precision…
    expect((await row('BIG')).slice(0, 7)).toEqual(['BIG', '3', '3', '3', '2', '1', '1']);
    expect((await row('NIGHT')).slice(0, 7)).toEqual(['NIGHT', '1', '1', '1', '1', '1', '0']);
    expect(await page.locator('canvas[role=img]').count()).toBe(3);
    await shot(page, 'rule-performance');
    // Its 13 columns: at a laptop's width the table fits; at a tablet's the page still does not scroll sideways, the
    // table scrolling in a box of its own that the keyboard can focus, its last column reached by scrolling it.
    const box = page.getByRole('region', { name: 'Rules, most false positives first' });
    expect(await box.getAttribute('tabindex')).toBe('0');
    for (const [width, clipped] of [
      [1280, []],
      [820, ['Rules, most false positives first']],
    ] as const) {
      await page.setViewportSize({ width, height: 900 });
      const layout = await page.evaluate<{ overflow: number; clipped: string[]; unlabelled: string[] }>(LAYOUT_PROBE);
      expect({ ...layout, overflow: Math.max(0, layout.overflow) }, `${width} px`).toEqual({ overflow: 0, clipped, unlabelled: [] });
    }
    const last = await table.getByRole('columnheader', { name: 'Median hours to close' }).elementHandle();
    const shown = () => box.evaluate((el, header) => header!.getBoundingClientRect().right <= el.getBoundingClientRect().right + 1, last);
    expect(await shown()).toBe(false);
    await box.focus();
    for (let i = 0; i < 30 && !(await shown()); i++) await page.keyboard.press('ArrowRight');
    expect(await shown()).toBe(true);
    await context.close();
  });

  it('deploys a candidate in shadow from the rules page, shows its live report and plot, and publishes it with two admins', async () => {
    clock.set('2026-03-03T08:00:00.000Z');
    // Ann pastes a candidate that lowers BIG to NGN 500,000 and deploys it in shadow for 24 hours.
    const a = await rig.signedIn(ann);
    await a.page.goto('/console/rules');
    await a.page.getByLabel('File name').fill('loop.rules');
    await a.page.getByLabel('Rules (paste)').fill(rules('500_000'));
    await a.page.getByLabel('Shadow stops after (hours)').fill('24');
    await a.page.getByRole('button', { name: 'Deploy in shadow' }).click();
    await a.page.waitForURL('**/console/rules/shadow');
    await see(a.page.getByText('no decision evaluated yet'));
    await a.context.close();

    // Three hours of traffic: hour h has h+1 transfers of 600,000 (approved now, review under the candidate), one of
    // 2,000,000 (review under both) and two small ones.
    for (let h = 0; h < 3; h++) {
      for (let i = 0; i <= h; i++) await decide(600_000);
      await decide(2_000_000);
      await decide(20_000);
      await decide(30_000);
      clock.advance(HOUR);
    }
    await rig.engine.shadows.settle(BIZ);

    const b = await rig.signedIn(ann);
    await b.page.goto('/console/rules/shadow');
    await see(b.page.getByText('6 would change'));
    expect(await b.page.getByText('15 evaluated').count()).toBe(1);
    await see(b.page.getByText('2026-03-03 08:00:00 to 2026-03-03 10:00:00 (UTC)', { exact: false }));
    const pairs = b.page.getByRole('table', { name: 'Decisions it would change' });
    expect(await pairs.getByRole('row').nth(1).innerText()).toBe('approved→review\t6');
    const hits = b.page.getByRole('table', { name: 'Hits per rule' });
    expect(await hits.getByRole('row').filter({ hasText: 'BIG' }).innerText()).toBe('BIG\t3\t9');
    const changed = b.page.getByRole('table', { name: 'Changed decisions' });
    expect(await changed.getByRole('row').count()).toBe(7);
    await see(changed.getByRole('cell', { name: 'cust-', exact: false }));
    // The plot is the server's SVG: one point per hour for each ruleset, the candidate's hits 2, 3 and 4.
    const plot = b.page.locator('svg.plot');
    expect(await plot.getAttribute('aria-label')).toBe('Hits per hour, all rules: deciding against candidate');
    expect(await plot.locator('g[data-series=candidate] circle title').allTextContents()).toEqual([
      'candidate, 03-03 08h: 2',
      'candidate, 03-03 09h: 3',
      'candidate, 03-03 10h: 4',
    ]);
    expect(await plot.locator('g[data-series=deciding] circle').count()).toBe(3);
    // An analyst may stop the shadow but not publish it.
    expect(await b.page.getByRole('button', { name: 'Publish the candidate' }).count()).toBe(0);
    await see(b.page.getByRole('button', { name: 'Stop the shadow' }));
    await b.page.getByRole('link', { name: 'approved→review' }).click();
    await see(b.page.getByText('Page 1 of 1 (6 in all)'));
    // At both widths nothing scrolls sideways, no table hides columns, every control is labelled.
    for (const width of [820, 1280]) {
      await b.page.setViewportSize({ width, height: 900 });
      const layout = await b.page.evaluate<{ overflow: number; clipped: string[]; unlabelled: string[] }>(LAYOUT_PROBE);
      expect({ ...layout, overflow: Math.max(0, layout.overflow) }, `${width} px`).toEqual({ overflow: 0, clipped: [], unlabelled: [] });
    }
    await shot(b.page, 'rules-shadow');
    await b.context.close();

    // The business puts publishing under four eyes (a policy change takes two people).
    const policy = await rig.engine.approvals.request(
      BIZ,
      { kind: 'user', id: ada.userId, name: 'Ada Admin' },
      {
        action: 'policy.change',
        subject: { kind: 'policy', id: 'four-eyes' },
        summary: 'Four eyes on publishing rules',
        payload: { actions: ['ruleset.publish'] },
        reason: 'audit',
      },
    );
    await rig.engine.approvals.decide(BIZ, { kind: 'user', id: abe.userId, name: 'Abe Second' }, policy.request_id, true, '');

    // Ada asks to publish: it waits, the rules in force do not change, and she cannot approve her own request.
    const before = rig.engine.monitoring.rulesInForce().version;
    const d = await rig.signedIn(ada);
    await d.page.goto('/console/rules/shadow');
    await d.page.getByLabel('Why publish (for the approver)').fill('6 changes in 3 hours, all large transfers');
    await d.page.getByRole('button', { name: 'Publish the candidate' }).click();
    await see(d.page.getByText('You asked for this: it takes effect when someone else approves it.'));
    expect(await d.page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    const csrf = await d.page.locator('input[name=_csrf]').first().inputValue();
    expect((await d.page.request.post(d.page.url(), { form: { decision: 'approve', reason: '', _csrf: csrf } })).status()).toBe(403);
    expect(rig.engine.monitoring.rulesInForce().version).toBe(before);
    expect((await rig.engine.shadows.report(BIZ)).shadow.status).toBe('running');

    // Abe approves: the candidate decides from now on, and the shadow stopped as published.
    const e = await rig.signedIn(abe);
    await e.page.goto('/console/approvals');
    await see(e.page.getByRole('cell', { name: '6 changes in 3 hours, all large transfers' }));
    await e.page
      .getByRole('table', { name: /Waiting for a second person/ })
      .getByRole('link')
      .first()
      .click();
    await see(e.page.getByText('Publishing a shadow ruleset'));
    await e.page.getByRole('button', { name: 'Approve' }).click();
    await see(e.page.locator('dd .badge.approved'));
    const report = await rig.engine.shadows.report(BIZ);
    expect(report.shadow).toMatchObject({ status: 'stopped', stopReason: 'published' });
    expect(rig.engine.monitoring.rulesInForce().version).toBe(report.shadow.candidateVersion);
    expect(await readFile(join(rulesDir, 'loop.rules'), 'utf8')).toBe(rules('500_000'));
    expect(
      (await rig.engine.monitoring.decide({ businessId: BIZ }, tx('AN-after', { transactionData: { amount: 600_000 } }))).action.result,
    ).toBe('review');
    await e.page.goto('/console/rules/shadow');
    await see(e.page.getByText('published', { exact: false }));
    await d.context.close();
    await e.context.close();
  });
});
