import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, type ConsoleRig, type Person, SCREENSHOTS, see, startRig } from './browser.js';

/** Everything the tab keeps in sessionStorage and localStorage, as one string (run in the page). */
const STORED = `JSON.stringify([Object.entries(sessionStorage), Object.entries(localStorage)])`;

describe.runIf(chromiumAvailable())('the console and /docs in the browser', { timeout: 120_000 }, () => {
  let rig: ConsoleRig;
  let admin: Person;

  beforeAll(async () => {
    rig = await startRig();
    admin = await rig.person('acme', 'admin', 'Ada', 'Admin');
  }, 120_000);
  afterAll(async () => rig?.close());

  it('does not give a new API key secret back on Back, and keeps no page in storage', async () => {
    const { context, page } = await rig.signedIn(admin);
    await page.goto('/console/admin/keys');
    await page.getByLabel('Key name').fill('card switch');
    await page.getByRole('button', { name: 'Create key' }).click();
    await see(page.getByText('Its secret is shown only now'));
    const [, apiSecret, webhookSecret] = await page.locator('dl.facts dd code').allInnerTexts();
    expect(apiSecret).toBeTruthy();

    await page.getByRole('link', { name: 'Queue' }).click();
    await page.waitForURL('**/console/queue');
    expect(await page.evaluate(STORED)).not.toContain(apiSecret);
    await page.goBack();
    await see(page.getByRole('heading', { name: 'API keys' }));
    const html = await page.content();
    expect(html).not.toContain(apiSecret);
    expect(html).not.toContain(webhookSecret);
    const stored = (await page.evaluate(STORED)) as string;
    expect(stored).not.toContain(apiSecret);
    expect(stored).not.toContain('htmx-history-cache');
    await context.close();
  });

  it('answers every page with no-store and clears the site data on sign-out', async () => {
    const { context, page } = await rig.signedIn(admin);
    const pageAnswer = await page.goto('/console/queue');
    expect(pageAnswer?.headers()['cache-control']).toBe('no-store');
    await page.evaluate(`sessionStorage.setItem('probe', 'left by a page'); localStorage.setItem('probe', 'left by a page')`);
    const [signOut] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/console/sign-out')),
      page.getByRole('button', { name: 'Sign out' }).click(),
    ]);
    const headers = await signOut.allHeaders();
    expect(headers['clear-site-data']).toBe('"cache", "storage"');
    expect(headers['cache-control']).toBe('no-store');
    await page.waitForURL('**/console/sign-in');
    // htmx notes the path it is on when the sign-in page loads; nothing stored before sign-out is left.
    expect(await page.evaluate(STORED)).not.toContain('left by a page');
    await context.close();
  });

  it('renders /docs offline under a CSP that forbids inline scripts, with no violation', async () => {
    const context = await rig.browser.newContext({ baseURL: rig.base });
    const page = await context.newPage();
    const violations: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') violations.push(m.text());
    });
    // Nothing but this origin: a request anywhere else fails the test.
    await page.route(/^(?!http:\/\/127\.0\.0\.1:)/, (route) => {
      violations.push(`request to ${route.request().url()}`);
      return route.abort();
    });
    const answer = await page.goto('/docs');
    expect(answer?.headers()['content-security-policy']).toContain("script-src 'self'");
    // Swagger UI breaks a path with zero-width spaces after its slashes.
    await see(page.locator('.opblock-summary-path').filter({ hasText: /transaction-monitoring.*instant/ }));
    await page.screenshot({ path: `${SCREENSHOTS}/docs.png` });
    await page.locator('.opblock-summary').first().click();
    await see(page.locator('.opblock-body'));
    expect(violations).toEqual([]);
    await context.close();
  });
});
