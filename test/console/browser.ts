import { existsSync, mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import type { Engine } from '../../src/engine.js';
import { createApp } from '../../src/http/app.js';
import { testEngine, type TestEngine, type TestEngineOptions } from '../helpers.js';

export const CHROMIUM = '/usr/bin/chromium';
export const SCREENSHOTS = 'test-results/console';

/** Chromium present, or the one line saying why the browser tests do not run (a failure under CI_REQUIRE_SERVICES=1). */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI_REQUIRE_SERVICES === '1') throw new Error(`${CHROMIUM} is missing and CI_REQUIRE_SERVICES=1`);
  console.warn(`console browser tests skipped: ${CHROMIUM} is missing (apt-get install -y chromium)`);
  return false;
}

export interface Person {
  businessId: string;
  userId: string;
  email: string;
  password: string;
}

export interface ConsoleRig {
  engine: Engine;
  base: string;
  browser: Browser;
  /** A signed-in browser context of its own for the person. */
  signedIn(person: Person): Promise<{ context: BrowserContext; page: Page }>;
  person(businessId: string, role: string, firstName: string, lastName: string): Promise<Person>;
  close(): Promise<void>;
}

/**
 * One engine, one HTTP server and one Chromium for the whole file; the bundled rules unless `options` say otherwise
 * (a test may give the engine a clock it moves).
 */
export async function startRig(options: TestEngineOptions = {}): Promise<ConsoleRig> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const t: TestEngine = await testEngine({ rulesDir: 'rules', watchRules: false, ...options });
  const app = createApp(t.engine, { publicBaseUrl: 'http://localhost:8080' });
  const server: ServerType = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  let n = 0;
  return {
    engine: t.engine,
    base,
    browser,
    async person(businessId, role, firstName, lastName) {
      const email = `${firstName.toLowerCase()}.${++n}@${businessId}.example`;
      const user = await t.engine.users.create({ businessId }, { firstName, lastName, email, role });
      const password = `pass-phrase-${n}-long-enough`;
      await t.engine.signIn.setPassword(businessId, user._id, password, 'test');
      return { businessId, userId: user._id, email, password };
    },
    async signedIn(person) {
      const context = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      await signIn(page, person.email, person.password);
      await page.waitForURL('**/console/dashboard');
      return { context, page };
    },
    async close() {
      await browser.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await t.close();
    },
  };
}

export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/console/sign-in');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

export const shot = (page: Page, name: string) => page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: true });

/** Waits until the locator's first match is visible (playwright-core has no web-first assertions of its own). */
export const see = (locator: Locator) => locator.first().waitFor({ state: 'visible', timeout: 15_000 });

/**
 * Run in the page (the tests' TypeScript has no DOM types): how far the page scrolls sideways, the tables too wide
 * for their box (they scroll within it, hiding columns), and the form controls neither a label nor an aria
 * attribute names.
 */
export const LAYOUT_PROBE = `({
  overflow: document.documentElement.scrollWidth - window.innerWidth,
  clipped: [...document.querySelectorAll('.table-scroll')]
    .filter((box) => box.scrollWidth > box.clientWidth)
    .map((box) => box.querySelector('caption').textContent),
  unlabelled: [...document.querySelectorAll('input:not([type=hidden]), select, textarea')]
    .filter((el) => el.labels.length === 0 && !el.getAttribute('aria-label') && !el.getAttribute('aria-labelledby'))
    .map((el) => el.outerHTML),
})`;
