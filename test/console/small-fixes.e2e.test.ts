import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, type ConsoleRig, type Person, see, startRig } from './browser.js';

describe.runIf(chromiumAvailable())('the small fixes, in Chromium', { timeout: 120_000 }, () => {
  let rig: ConsoleRig;
  let ann: Person;

  beforeAll(async () => {
    rig = await startRig();
    ann = await rig.person('sbank', 'analyst', 'Ann', 'Analyst');
  }, 120_000);
  afterAll(async () => rig?.close());

  it('agrees on a country given in capitals, names who added a list entry, and says which list is empty', async () => {
    const { context, page } = await rig.signedIn(ann);
    await page.goto('/console/screening?name=Vladimir+Putin&country=RU');
    const why = page
      .getByRole('table', { name: /Candidates for/ })
      .locator('tbody tr')
      .first()
      .locator('td')
      .last();
    await see(why);
    expect(await why.innerText()).toMatch(/countries: [^;]*\bru\b[^;]* \(agrees\)/i);

    await page.goto('/console/lists');
    await see(page.getByRole('cell', { name: 'No account is blacklisted.' }));
    await rig.engine.monitoring.addToBlacklist({ businessId: 'sbank', userId: ann.userId }, 'accounts', '5550001');
    await page.goto('/console/lists');
    const row = page.getByRole('row', { name: /5550001/ });
    await see(row);
    expect(await row.innerText()).toContain('Ann Analyst');
    expect(await row.innerText()).not.toContain(ann.userId);
    expect(await page.getByRole('cell', { name: 'No account is blacklisted.' }).count()).toBe(0);
    await context.close();
  });
});
