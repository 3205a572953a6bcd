import type { Context, Hono } from 'hono';
import { getCookie } from 'hono/cookie';
import { UnauthorizedError, ValidationError } from '../../errors.js';
import { passwordProblem, SESSION_MS, type Session } from '../../users/index.js';
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

/** A comment sent once the session had ended, carried through sign-in in the forms themselves (nothing is stored). */
interface Unsent {
  caseId: string;
  text: string;
  attachments: string;
}

const unsentFields = (unsent: Unsent | undefined) =>
  unsent ? (
    <>
      <input type="hidden" name="unsentCase" value={unsent.caseId} />
      <input type="hidden" name="unsentText" value={unsent.text} />
      <input type="hidden" name="unsentAttachments" value={unsent.attachments} />
    </>
  ) : null;

const SignInForm = ({
  csrf,
  email,
  error,
  next,
  unsent,
}: {
  csrf: string;
  email?: string;
  error?: string;
  next?: string;
  unsent?: Unsent;
}) => (
  <Page title="Sign in">
    {error ? <Notice kind="error">{error}</Notice> : null}
    {unsent ? (
      <Notice kind="info">Your session ended before your comment was sent. Sign in again: the comment comes back for you to send.</Notice>
    ) : null}
    {/* Never boosted: a page swapped in after a session ended keeps the old page's htmx headers on its body. */}
    <form method="post" action="/console/sign-in" class="narrow" hx-boost="false">
      <Csrf token={csrf} />
      {next ? <input type="hidden" name="next" value={next} /> : null}
      {unsentFields(unsent)}
      <label for="email">Email</label>
      <input id="email" name="email" type="email" autocomplete="username" required value={email ?? ''} autofocus />
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="current-password" required />
      <button type="submit">Sign in</button>
    </form>
  </Page>
);

const field = (body: Record<string, unknown>, name: string) => (typeof body[name] === 'string' ? (body[name] as string) : '');

const CASE_ID = /^[A-Za-z0-9_-]{1,100}$/;
const COMMENTS = /^\/console\/cases\/([A-Za-z0-9_-]{1,100})\/comments$/;
const MAX_COMMENT = 10_000;

/** The comment a form carries, when it has one to carry: a case id and some text, within bounds. */
function unsentOf(caseId: string, text: string, attachments: string): Unsent | undefined {
  if (!CASE_ID.test(caseId) || !text.trim() || text.length > MAX_COMMENT || attachments.length > 200) return undefined;
  return { caseId, text, attachments };
}

/**
 * A comment posted after the session ended is not lost: the answer is the sign-in form, carrying the comment in
 * hidden fields; after sign-in it comes back in the case's comment form, for the person to check and send (never
 * sent by itself: whoever signs in sends it, under their own session and CSRF token).
 */
export async function signInKeepingComment(c: Context<ConsoleEnv>): Promise<Response | undefined> {
  const caseId = c.req.method === 'POST' ? COMMENTS.exec(c.req.path)?.[1] : undefined;
  if (!caseId) return undefined;
  const body = await c.req.parseBody();
  const unsent = unsentOf(caseId, field(body, 'text'), field(body, 'attachments'));
  if (!unsent) return undefined;
  // A boosted post would show the comments URL, which has no page of its own.
  c.header('HX-Push-Url', 'false');
  return c.html(<SignInForm csrf={csrfFor(preSessionToken(c))} next={`/console/cases/${caseId}`} unsent={unsent} />, 401);
}

/** After sign-in: the unsent comment in the case's comment form, under the new session. */
const UnsentComment = ({ unsent, session, csrf }: { unsent: Unsent; session: Session; csrf: string }) => {
  const caseUrl = `/console/cases/${unsent.caseId}`;
  return (
    <Page title="Your unsent comment" session={session} csrf={csrf}>
      <Notice kind="info">Your session ended before this comment was sent. Check it, then add it to the case.</Notice>
      <form method="post" action={`${caseUrl}/comments`}>
        <Csrf token={csrf} />
        <label for="comment">New comment</label>
        <textarea id="comment" name="text" required>
          {unsent.text}
        </textarea>
        <input type="hidden" name="attachments" value={unsent.attachments} />
        <button type="submit">Add comment</button>
      </form>
      <p>
        <a href={caseUrl}>Back to the case without it</a>
      </p>
    </Page>
  );
};

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
    const unsent = unsentOf(field(body, 'unsentCase'), field(body, 'unsentText'), field(body, 'unsentAttachments'));
    try {
      const { token, session, device } = await c.var.engine.signIn.signIn(email, field(body, 'password'), {
        address: clientAddress(c),
        device: getCookie(c, DEVICE_COOKIE),
      });
      setConsoleCookie(c, SESSION_COOKIE, token, SESSION_MS / 1000);
      setConsoleCookie(c, DEVICE_COOKIE, device, DEVICE_COOKIE_DAYS * 24 * 60 * 60);
      clearConsoleCookie(c, PRE_SESSION_COOKIE);
      if (unsent && !session.mustChangePassword) return c.html(<UnsentComment unsent={unsent} session={session} csrf={csrfFor(token)} />);
      return c.redirect(session.mustChangePassword ? '/console/password' : (next ?? '/console/dashboard'), 303);
    } catch (error) {
      if (!(error instanceof UnauthorizedError)) throw error;
      return c.html(<SignInForm csrf={csrfFor(pre!)} email={email} error={error.message} next={next} unsent={unsent} />, 401);
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
