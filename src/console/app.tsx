import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { contextStorage } from 'hono/context-storage';
import type { Engine } from '../engine.js';
import { DomainError } from '../errors.js';
import { STATUS } from '../http/errors.js';
import { CLIENT_JS } from './assets/client.js';
import { consoleBodyLimits } from './body-limits.js';
import { STYLE_CSS } from './assets/style.js';
import type { ConsoleEnv } from './env.js';
import { Notice, Page } from './layout.js';
import { registerAdmin } from './pages/admin.js';
import { registerApprovals } from './pages/approvals.js';
import { registerAdminKeys } from './pages/admin-keys.js';
import { registerAdminWebhooks } from './pages/admin-webhooks.js';
import { registerCase } from './pages/case.js';
import { registerCustomers } from './pages/customers.js';
import { registerDashboard } from './pages/dashboard.js';
import { registerLists } from './pages/lists.js';
import { registerQueue } from './pages/queue.js';
import { registerRules } from './pages/rules.js';
import { registerRulePerformance } from './pages/rule-performance.js';
import { registerRulesShadow } from './pages/rules-shadow.js';
import { registerTransactions } from './pages/transactions.js';
import { registerScreening } from './pages/screening.js';
import { registerSignIn, signInKeepingComment } from './pages/sign-in.js';
import { clearSiteData, consolePath, csrfFor, csrfRefusal, securityHeaders, SESSION_COOKIE } from './security.js';

const require = createRequire(import.meta.url);
const ASSETS: Record<string, { type: string; body: () => string }> = {
  'htmx.min.js': { type: 'text/javascript', body: () => readFileSync(require.resolve('htmx.org/dist/htmx.min.js'), 'utf8') },
  // chart.js exports no subpaths: its UMD build sits beside the resolved main entry.
  'chart.umd.min.js': {
    type: 'text/javascript',
    body: () => readFileSync(join(dirname(require.resolve('chart.js')), 'chart.umd.min.js'), 'utf8'),
  },
  'console.js': { type: 'text/javascript', body: () => CLIENT_JS },
  'console.css': { type: 'text/css', body: () => STYLE_CSS },
};
const assetCache = new Map<string, string>();

/** Pages a signed-in person may reach before changing a one-time password, and the changes an auditor may still make. */
const OWN_ACCOUNT = new Set(['/console/password', '/console/sign-out']);

/** To sign in, then back to the page asked for (a form's page, for a change sent once the session had ended). */
function toSignIn(c: Context): Response {
  const url = new URL(c.req.url);
  const asked = consolePath(c.req.method === 'GET' ? url.pathname + url.search : backTo(c));
  const signIn = asked && asked !== '/console/dashboard' ? `/console/sign-in?next=${encodeURIComponent(asked)}` : '/console/sign-in';
  if (c.req.header('HX-Request')) {
    c.header('HX-Redirect', signIn);
    return c.body(null, 204);
  }
  return c.redirect(signIn, 303);
}

/** The console page the request came from, as a path on this origin; the dashboard when the Referer is anything else. */
function backTo(c: Context): string {
  let url: URL | undefined;
  try {
    url = new URL(c.req.header('Referer') ?? '');
  } catch {
    return '/console/dashboard';
  }
  if (url.origin !== new URL(c.req.url).origin || !url.pathname.startsWith('/console/')) return '/console/dashboard';
  return url.pathname + url.search;
}

/** Who is asking: the session's person, their CSRF token checked on every change, an auditor kept to reading. */
const authenticate: MiddlewareHandler<ConsoleEnv> = async (c, next) => {
  const token = getCookie(c, SESSION_COOKIE);
  const session = await c.var.engine.signIn.session(token);
  if (!session || !token) {
    // An ended or expired session leaves nothing of its pages behind in the browser either.
    if (token) clearSiteData(c);
    return (await signInKeepingComment(c)) ?? toSignIn(c);
  }
  const csrf = csrfFor(token);
  c.set('session', session);
  c.set('csrf', csrf);
  const refused = await csrfRefusal(c, csrf);
  if (refused) return refused;
  // The navigation shows how many requests wait for a second person (layout.tsx reads it through contextStorage).
  c.set('pendingApprovals', await c.var.engine.approvals.pendingCount(session.businessId));
  if (session.mustChangePassword && !OWN_ACCOUNT.has(c.req.path)) return c.redirect('/console/password', 303);
  if (c.req.method !== 'GET' && session.role === 'auditor' && !OWN_ACCOUNT.has(c.req.path)) {
    return c.html(
      <Page title="Not allowed" session={session} csrf={csrf}>
        <Notice kind="error">Auditors read everything and change nothing.</Notice>
      </Page>,
      403,
    );
  }
  await next();
};

/**
 * The analyst console at /console: server-rendered pages (hono/jsx) over the engine's services, with htmx for
 * in-place updates. It reads and writes only through the domain services, like the HTTP API.
 */
export function createConsole(engine: Engine): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  app.use('*', async (c, next) => {
    c.set('engine', engine);
    await next();
  });
  app.use('*', contextStorage());
  app.use('*', securityHeaders);
  app.use('*', consoleBodyLimits);
  app.get('/assets/:file', (c) => {
    const file = c.req.param('file');
    const asset = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined;
    if (!asset) return c.notFound();
    let body = assetCache.get(file);
    if (body === undefined) assetCache.set(file, (body = asset.body()));
    c.header('Cache-Control', 'public, max-age=3600');
    return c.body(body, 200, { 'Content-Type': `${asset.type}; charset=utf-8` });
  });
  app.use('*', async (c, next) => {
    const path = c.req.path;
    if (path === '/console/sign-in' || path.startsWith('/console/assets/')) return next();
    return authenticate(c, next);
  });

  app.get('/', (c) => c.redirect('/console/dashboard', 302));
  registerSignIn(app);
  registerDashboard(app);
  registerQueue(app);
  registerCase(app);
  registerCustomers(app);
  registerAdmin(app);
  registerApprovals(app);
  registerAdminKeys(app);
  registerAdminWebhooks(app);
  registerLists(app);
  registerRules(app);
  registerRulePerformance(app);
  registerRulesShadow(app);
  registerTransactions(app);
  registerScreening(app);

  app.post('/uploads', async (c) => {
    const fileType = c.req.query('fileType') ?? '';
    const { key, url } = await engine.uploads.authorize(
      { businessId: c.var.session.businessId, userId: c.var.session.user._id },
      { fileType, access: 'private' },
    );
    return c.json({ key, url });
  });

  app.notFound((c) =>
    c.html(
      <Page title="Not found" session={c.get('session')} csrf={c.get('csrf')}>
        <Notice kind="error">There is no page at {c.req.path}.</Notice>
      </Page>,
      404,
    ),
  );
  app.onError((err, c) => {
    if (!(err instanceof DomainError)) {
      engine.logger.error({ err, path: c.req.path }, 'console error');
      return c.html(
        <Page title="Something went wrong" session={c.get('session')} csrf={c.get('csrf')}>
          <Notice kind="error">The request failed; it is logged with id {c.get('requestId' as never)}.</Notice>
        </Page>,
        500,
      );
    }
    const status = STATUS[err.kind];
    if (c.req.path === '/console/uploads') return c.json({ message: err.message }, status);
    return c.html(
      <Page title={status === 404 ? 'Not found' : 'Not done'} session={c.get('session')} csrf={c.get('csrf')}>
        <Notice kind="error">{err.message}</Notice>
        <p>
          <a href={backTo(c)}>Go back</a>
        </p>
      </Page>,
      status,
    );
  });
  return app;
}
