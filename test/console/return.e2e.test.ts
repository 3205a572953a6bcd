import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, type ConsoleRig, type Person, signIn, startRig } from './browser.js';

describe.runIf(chromiumAvailable())('signing in returns to the page asked for, in Chromium', { timeout: 120_000 }, () => {
  let rig: ConsoleRig;
  let ann: Person;

  beforeAll(async () => {
    rig = await startRig();
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
});
