import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { ConsoleEnv } from './env.js';

export const SESSION_COOKIE = 'console_session';
/**
 * Tells the browser to drop what this origin cached and stored (pages in the HTTP cache, htmx's or anyone's
 * sessionStorage and localStorage). Not "cookies": that would clear every cookie of the registrable domain, other
 * applications' too; the session cookie is deleted by name.
 */
export const clearSiteData = (c: Context) => c.header('Clear-Site-Data', '"cache", "storage"');

/** Before sign-in there is no session to bind a CSRF token to, so the sign-in form has a cookie of its own. */
export const PRE_SESSION_COOKIE = 'console_pre';
/**
 * A browser's proof that it signed in to an account before: its attempts skip the sign-in throttles, so that
 * strangers' guesses cannot keep the account's owner out. Kept across sign-outs.
 */
export const DEVICE_COOKIE = 'console_device';
export const DEVICE_COOKIE_DAYS = 180;
export const CSRF_FIELD = '_csrf';
export const CSRF_HEADER = 'X-CSRF-Token';

/** The session's CSRF token, derived from its cookie token: an attacker's page can read neither. */
export const csrfFor = (cookieToken: string) => createHash('sha256').update(`csrf:${cookieToken}`).digest('base64url');

/** Behind a TLS-terminating proxy the request URL is http, so its X-Forwarded-Proto counts too. */
export const isHttps = (c: Context) =>
  new URL(c.req.url).protocol === 'https:' || c.req.header('x-forwarded-proto')?.split(',')[0]?.trim() === 'https';

/**
 * The peer's address for the sign-in throttle: the socket's, never a header a client can write (behind a proxy, the
 * proxy's). Undefined when the app is called without a Node server, as by `app.request` in a test.
 */
export const clientAddress = (c: Context): string | undefined =>
  (c.env as { incoming?: unknown } | undefined)?.incoming ? getConnInfo(c).remote.address : undefined;

export function setConsoleCookie(c: Context, name: string, value: string, maxAgeSeconds: number): void {
  setCookie(c, name, value, { path: '/console', httpOnly: true, sameSite: 'Strict', secure: isHttps(c), maxAge: maxAgeSeconds });
}

export function clearConsoleCookie(c: Context, name: string): void {
  deleteCookie(c, name, { path: '/console', httpOnly: true, sameSite: 'Strict', secure: isHttps(c) });
}

export function preSessionToken(c: Context): string {
  const existing = getCookie(c, PRE_SESSION_COOKIE);
  if (existing && existing.length === 43) return existing;
  const token = randomBytes(32).toString('base64url');
  setConsoleCookie(c, PRE_SESSION_COOKIE, token, 60 * 60);
  return token;
}

const same = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** The token a state-changing request carries, from its header (htmx, fetch) or its form field. */
async function presentedToken(c: Context): Promise<string | undefined> {
  const header = c.req.header(CSRF_HEADER);
  if (header) return header;
  const type = c.req.header('content-type') ?? '';
  if (type.startsWith('application/x-www-form-urlencoded') || type.startsWith('multipart/form-data')) {
    const value = (await c.req.parseBody())[CSRF_FIELD];
    return typeof value === 'string' ? value : undefined;
  }
  return undefined;
}

/** Refuses a state-changing request whose CSRF token is missing or not the expected one. */
export async function csrfRefusal(c: Context, expected: string | undefined): Promise<Response | undefined> {
  if (c.req.method === 'GET' || c.req.method === 'HEAD') return undefined;
  const presented = await presentedToken(c);
  if (expected && presented && same(presented, expected)) return undefined;
  return c.text('Forbidden: the form is missing its CSRF token or it has expired; reload the page and try again.', 403);
}

/** Headers every console answer carries: no framing, no third-party anything, nothing cached. */
export const securityHeaders: MiddlewareHandler<ConsoleEnv> = async (c, next) => {
  await next();
  c.header(
    'Content-Security-Policy',
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'; object-src 'none'",
  );
  c.header('X-Frame-Options', 'DENY');
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('Referrer-Policy', 'same-origin');
  if (!c.res.headers.has('Cache-Control')) c.header('Cache-Control', 'no-store');
};

/**
 * Where to go after signing in: a console page on this origin as asked for (`/console/cases/X?alerts=2`), never
 * another origin (`//evil.example`, `https://…`, `/\evil.example`) nor the sign-in page itself; undefined otherwise.
 */
export function consolePath(asked: string | undefined): string | undefined {
  if (!asked?.startsWith('/console/') || asked.includes('\\')) return undefined;
  let url: URL;
  try {
    url = new URL(asked, 'http://console.invalid');
  } catch {
    return undefined;
  }
  if (url.origin !== 'http://console.invalid' || !url.pathname.startsWith('/console/')) return undefined;
  if (url.pathname === '/console/sign-in' || url.pathname === '/console/sign-out') return undefined;
  return url.pathname + url.search;
}
