import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { chromiumAvailable, type ConsoleRig, type Person, see, shot, signIn, startRig } from './browser.js';

describe.runIf(chromiumAvailable())('signing in returns to the page asked for, in Chromium', { timeout: 120_000 }, () => {
  let rig: ConsoleRig;
  let ann: Person;
  const clock = new ManualClock('2026-03-01T08:00:00.000Z');

  beforeAll(async () => {
    rig = await startRig({ clock });
    ann = await rig.person('rbank', 'analyst', 'Ann', 'Analyst');
  }, 120_000);
  afterAll(async () => rig?.close());

  it('goes back to the console page asked for, and never to another origin', async () => {
    const k = await rig.engine.cases.create(
      { businessId: 'rbank' },
      { module: 'aml', record: { type: 'customer', id: 'c-ret', name: 'Ret' }, title: 'Return here', description: '', priority: 'low' },
    );
    const context = await rig.browser.newContext({ baseURL: rig.base });
    const page = await context.newPage();
    await page.goto(`/console/cases/${k._id}?alerts=1`);
    await page.waitForURL(/\/console\/sign-in\?next=/);
    await page.getByLabel('Email').fill(ann.email);
    await page.getByLabel('Password').fill(ann.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`**/console/cases/${k._id}?alerts=1`);
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Return here');
    await context.close();

    for (const next of [
      '//evil.example/console/x',
      'https://evil.example/console/',
      '/console/../evil',
      '/\\evil.example',
      '/console/sign-in',
    ]) {
      const other = await rig.browser.newContext({ baseURL: rig.base });
      const p = await other.newPage();
      await p.goto(`/console/sign-in?next=${encodeURIComponent(next)}`);
      expect(await p.locator('input[name=next]').count(), next).toBe(0);
      // Even posted by hand, a foreign `next` leads to the dashboard.
      const csrf = await p.locator('input[name=_csrf]').inputValue();
      const res = await p.request.post('/console/sign-in', {
        form: { email: ann.email, password: ann.password, next, _csrf: csrf },
        maxRedirects: 0,
      });
      expect([res.status(), res.headers().location], next).toEqual([303, '/console/dashboard']);
      await other.close();
    }
    // Signing in without asking for a page still opens the dashboard.
    const plain = await rig.browser.newContext({ baseURL: rig.base });
    const p = await plain.newPage();
    await signIn(p, ann.email, ann.password);
    await p.waitForURL('**/console/dashboard');
    await plain.close();
  });

  it('keeps a comment typed while the session ended: sign-in carries it back to the form, to send under the new session', async () => {
    const k = await rig.engine.cases.create(
      { businessId: 'rbank' },
      { module: 'aml', record: { type: 'customer', id: 'c-late', name: 'Late' }, title: 'Typed late', description: '', priority: 'low' },
    );
    const { context, page } = await rig.signedIn(ann);
    await page.goto(`/console/cases/${k._id}`);
    const text = 'Called the customer: the transfer pays <school> fees & "boarding".';
    await page.getByLabel('New comment').fill(text);
    // The session ends (past its eight hours) while the comment is typed.
    clock.advance(9 * 60 * 60 * 1000);
    await page.getByRole('button', { name: 'Add comment' }).click();
    await see(page.getByText('Your session ended before your comment was sent.'));
    await page.getByLabel('Email').fill(ann.email);
    await page.getByLabel('Password').fill(ann.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await see(page.getByRole('heading', { name: 'Your unsent comment' }));
    expect(await page.getByLabel('New comment').inputValue()).toBe(text);
    await shot(page, 'unsent-comment');
    // Nothing was sent by itself: the person checks it and sends it.
    expect((await rig.engine.cases.get('rbank', k._id)).comments).toEqual([]);
    await page.getByRole('button', { name: 'Add comment' }).click();
    await page.waitForURL(`**/console/cases/${k._id}`);
    await see(page.getByRole('article').getByText(text));
    expect((await rig.engine.cases.get('rbank', k._id)).comments.map((m) => [m.text, m.user._id])).toEqual([[text, ann.userId]]);

    // The carried comment is no way around CSRF: a sign-in without the form's token is refused.
    const other = await rig.browser.newContext({ baseURL: rig.base });
    const res = await other.request.post('/console/sign-in', {
      form: { email: ann.email, password: ann.password, unsentCase: k._id, unsentText: 'forged' },
      maxRedirects: 0,
    });
    expect(res.status()).toBe(403);
    await other.close();
    await context.close();
  });
});
