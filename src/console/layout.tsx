import { raw } from 'hono/html';
import type { Child, FC, PropsWithChildren } from 'hono/jsx';
import { tryGetContext } from 'hono/context-storage';
import type { Session } from '../users/index.js';
import type { ConsoleEnv } from './env.js';

export const NAV = [
  ['/console/dashboard', 'Dashboard'],
  ['/console/queue', 'Queue'],
  ['/console/transactions', 'Transactions'],
  ['/console/customers', 'Customers'],
  ['/console/screening', 'Screening'],
  ['/console/lists', 'Lists'],
  ['/console/rules', 'Rules'],
] as const;

/**
 * htmx settings: errors are swapped in like any page (they carry the message), and no inline styles (the CSP
 * forbids them). No history cache: htmx would keep each page left in sessionStorage, a secret shown once with it,
 * and give it back on Back; Back asks the server again instead.
 */
const HTMX_CONFIG = JSON.stringify({
  historyCacheSize: 0,
  refreshOnHistoryMiss: true,
  includeIndicatorStyles: false,
  allowEval: false,
  responseHandling: [
    { code: '204', swap: false },
    { code: '...', swap: true },
  ],
});

export interface PageProps {
  title: string;
  session?: Session;
  csrf?: string;
  /** The nav entry to mark as the current page. */
  current?: string;
}

const fullName = (s: Session) => `${s.user.firstName} ${s.user.lastName}`.trim();

/** The shell of every page: a skip link, the main navigation, who is signed in, and the page's content. */
export const Page: FC<PropsWithChildren<PageProps>> = ({ title, session, csrf, current, children }) => {
  const pending = tryGetContext<ConsoleEnv>()?.var.pendingApprovals;
  return (
    <>
      {raw('<!DOCTYPE html>')}
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <meta name="htmx-config" content={HTMX_CONFIG} />
          <title>{`${title} · Compliance console`}</title>
          <link rel="stylesheet" href="/console/assets/console.css" />
          <script src="/console/assets/htmx.min.js" defer />
          {/* Always loaded: a boosted navigation swaps the body only, so a page cannot bring scripts of its own. */}
          <script src="/console/assets/chart.umd.min.js" defer />
          <script src="/console/assets/console.js" defer />
        </head>
        <body
          hx-boost={session ? 'true' : undefined}
          hx-history="false"
          hx-headers={csrf ? JSON.stringify({ 'X-CSRF-Token': csrf }) : undefined}
        >
          <a class="skip" href="#main">
            Skip to content
          </a>
          <header class="top">
            <span class="brand">Compliance console</span>
            {session ? (
              <>
                <nav aria-label="Main">
                  <ul>
                    {NAV.map(([href, label]) => (
                      <li>
                        <a href={href} aria-current={current === href ? 'page' : undefined}>
                          {label}
                        </a>
                      </li>
                    ))}
                    <li>
                      <a href="/console/approvals" aria-current={current === '/console/approvals' ? 'page' : undefined}>
                        Approvals{pending ? ` (${pending})` : ''}
                      </a>
                    </li>
                    {session.role === 'admin' || session.role === 'auditor' ? (
                      <li>
                        <a href="/console/admin" aria-current={current === '/console/admin' ? 'page' : undefined}>
                          Admin
                        </a>
                      </li>
                    ) : null}
                  </ul>
                </nav>
                <div class="who">
                  <span>
                    {fullName(session)} <span class="role">({session.role})</span>
                  </span>
                  <form method="post" action="/console/sign-out" hx-boost="false">
                    <input type="hidden" name="_csrf" value={csrf} />
                    <button type="submit" class="link">
                      Sign out
                    </button>
                  </form>
                </div>
              </>
            ) : null}
          </header>
          <main id="main" tabindex={-1}>
            <h1>{title}</h1>
            {children}
          </main>
        </body>
      </html>
    </>
  );
};

/** A hidden CSRF field for plain forms (htmx requests carry the header as well). */
export const Csrf: FC<{ token: string }> = ({ token }) => <input type="hidden" name="_csrf" value={token} />;

export const Notice: FC<{ kind: 'error' | 'info'; children?: Child }> = ({ kind, children }) => (
  <p class={`notice ${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
    {children}
  </p>
);

export const fmtDate = (iso: string | null | undefined) => (iso ? iso.replace('T', ' ').slice(0, 19) : '—');
