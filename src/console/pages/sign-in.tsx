import type { Hono } from 'hono';
import { getCookie } from 'hono/cookie';
import { UnauthorizedError, ValidationError } from '../../errors.js';
import { passwordProblem, SESSION_MS } from '../../users/index.js';
import type { ConsoleEnv } from '../env.js';
import { Csrf, Notice, Page } from '../layout.js';
import {
  clearConsoleCookie,
  clearSiteData,
  clientAddress,
  consolePath,
  csrfFor,
  csrfRefusal,
  DEVICE_COOKIE,
  DEVICE_COOKIE_DAYS,
  PRE_SESSION_COOKIE,
  preSessionToken,
  SESSION_COOKIE,
  setConsoleCookie,
} from '../security.js';

const SignInForm = ({ csrf, email, error, next }: { csrf: string; email?: string; error?: string; next?: string }) => (
  <Page title="Sign in">
    {error ? <Notice kind="error">{error}</Notice> : null}
    <form method="post" action="/console/sign-in" class="narrow">
      <Csrf token={csrf} />
      {next ? <input type="hidden" name="next" value={next} /> : null}
      <label for="email">Email</label>
      <input id="email" name="email" type="email" autocomplete="username" required value={email ?? ''} autofocus />
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="current-password" required />
      <button type="submit">Sign in</button>
    </form>
  </Page>
);

const field = (body: Record<string, unknown>, name: string) => (typeof body[name] === 'string' ? (body[name] as string) : '');

/** Sign-in, sign-out and the password change a one-time password forces. */
export function registerSignIn(app: Hono<ConsoleEnv>): void {
  app.get('/sign-in', (c) => c.html(<SignInForm csrf={csrfFor(preSessionToken(c))} next={consolePath(c.req.query('next'))} />));

  app.post('/sign-in', async (c) => {
    const pre = getCookie(c, PRE_SESSION_COOKIE);
    const refused = await csrfRefusal(c, pre && csrfFor(pre));
    if (refused) return refused;
    const body = await c.req.parseBody();
    const email = field(body, 'email');
    const next = consolePath(field(body, 'next'));
    try {
      const { token, session, device } = await c.var.engine.signIn.signIn(email, field(body, 'password'), {
        address: clientAddress(c),
        device: getCookie(c, DEVICE_COOKIE),
      });
      setConsoleCookie(c, SESSION_COOKIE, token, SESSION_MS / 1000);
      setConsoleCookie(c, DEVICE_COOKIE, device, DEVICE_COOKIE_DAYS * 24 * 60 * 60);
      clearConsoleCookie(c, PRE_SESSION_COOKIE);
      return c.redirect(session.mustChangePassword ? '/console/password' : (next ?? '/console/dashboard'), 303);
    } catch (error) {
      if (!(error instanceof UnauthorizedError)) throw error;
      return c.html(<SignInForm csrf={csrfFor(pre!)} email={email} error={error.message} next={next} />, 401);
    }
  });

  app.post('/sign-out', async (c) => {
    await c.var.engine.signIn.signOut(c.var.session);
    clearConsoleCookie(c, SESSION_COOKIE);
    clearSiteData(c);
    return c.redirect('/console/sign-in', 303);
  });

  const PasswordForm = ({ csrf, error, forced }: { csrf: string; error?: string; forced: boolean }) => (
    <Page title="Change your password" session={undefined} csrf={csrf}>
      {forced ? <Notice kind="info">Your password was issued for one use: choose your own before going on.</Notice> : null}
      {error ? <Notice kind="error">{error}</Notice> : null}
      <form method="post" action="/console/password" class="narrow">
        <Csrf token={csrf} />
        <label for="current">Current password</label>
        <input id="current" name="current" type="password" autocomplete="current-password" required />
        <label for="password">New password (at least 12 characters)</label>
        <input id="password" name="password" type="password" autocomplete="new-password" required minlength={12} />
        <label for="confirm">New password again</label>
        <input id="confirm" name="confirm" type="password" autocomplete="new-password" required minlength={12} />
        <button type="submit">Change password</button>
      </form>
    </Page>
  );

  app.get('/password', (c) => c.html(<PasswordForm csrf={c.var.csrf} forced={c.var.session.mustChangePassword} />));

  app.post('/password', async (c) => {
    const body = await c.req.parseBody();
    const next = field(body, 'password');
    const forced = c.var.session.mustChangePassword;
    if (next !== field(body, 'confirm'))
      return c.html(<PasswordForm csrf={c.var.csrf} forced={forced} error="The two new passwords differ" />, 400);
    const problem = passwordProblem(next, c.var.session.user.email);
    if (problem) return c.html(<PasswordForm csrf={c.var.csrf} forced={forced} error={problem} />, 400);
    try {
      await c.var.engine.signIn.changePassword(c.var.session, field(body, 'current'), next);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      return c.html(<PasswordForm csrf={c.var.csrf} forced={forced} error={error.message} />, 400);
    }
    return c.redirect('/console/dashboard', 303);
  });
}
