import type { Context } from 'hono';
import type { Child, FC, PropsWithChildren } from 'hono/jsx';
import type { Session, UserRef } from '../users/index.js';
import { Csrf, Notice, Page } from './layout.js';

export const name = (u: UserRef | null | undefined) => (u ? `${u.firstName} ${u.lastName}`.trim() || u._id : '—');

export const Badge: FC<{ value: string }> = ({ value }) => <span class={`badge ${value.replace(/\s+/g, '-')}`}>{value}</span>;

/** A select with a label; `value` marks the chosen option. */
export const Select: FC<{ id: string; label: string; name: string; value?: string; options: readonly (readonly [string, string])[] }> = ({
  id,
  label,
  name: field,
  value,
  options,
}) => (
  <div>
    <label for={id}>{label}</label>
    <select id={id} name={field}>
      {options.map(([v, text]) => (
        <option value={v} selected={v === (value ?? '')}>
          {text}
        </option>
      ))}
    </select>
  </div>
);

/** Previous / next links keeping the current query; `param` names the page in it (`page` unless told). */
export const Pager: FC<{ base: string; query: URLSearchParams; page: number; limit: number; total: number; param?: string }> = ({
  base,
  query,
  page,
  limit,
  total,
  param = 'page',
}) => {
  const pages = Math.max(1, Math.ceil(total / limit));
  const at = (p: number) => {
    const q = new URLSearchParams(query);
    q.set(param, String(p));
    return `${base}?${q}`;
  };
  return (
    <nav class="pager" aria-label="Pages">
      {page > 1 ? <a href={at(page - 1)}>Previous</a> : <span class="muted">Previous</span>}
      <span>
        Page {page} of {pages} ({total} in all)
      </span>
      {page < pages ? <a href={at(page + 1)}>Next</a> : <span class="muted">Next</span>}
    </nav>
  );
};

/** A page asked for past the last one (an old link, a listing that shrank) goes to the last, never to an empty table. */
export function pastLastPage(c: Context, page: number, total: number, limit: number, param = 'page'): Response | undefined {
  const last = Math.max(1, Math.ceil(total / limit));
  if (page <= last) return undefined;
  const url = new URL(c.req.url);
  url.searchParams.set(param, String(last));
  return c.redirect(`${url.pathname}${url.search}`, 302);
}

/** A canvas Chart.js draws from its JSON configuration (console.js); the table beside it is the accessible reading. */
export const Chart: FC<{ label: string; config: unknown }> = ({ label, config }) => (
  <canvas role="img" aria-label={label} data-chart={JSON.stringify(config)} />
);

export const GREY = '#8c959f';
export const BLUE = '#0a58ca';

/** A bar chart in a card: one bar per label for each series, laid sideways for long labels such as rule ids. */
export const BarChart: FC<{
  label: string;
  labels: readonly string[];
  series: readonly { label: string; data: readonly number[]; color: string }[];
  sideways?: boolean;
}> = ({ label, labels, series, sideways }) => (
  <div class="card">
    <Chart
      label={label}
      config={{
        type: 'bar',
        data: { labels, datasets: series.map((s) => ({ label: s.label, data: s.data, backgroundColor: s.color })) },
        options: { animation: false, indexAxis: sideways ? 'y' : 'x', responsive: true, maintainAspectRatio: false },
      }}
    />
  </div>
);

/** A column heading; `num` right-aligns a column of figures. */
export type Column = string | { label: string; num: true };

/**
 * A table with its caption and column headings; the rows are its children. `wide`: more columns than a tablet's
 * width holds, by design: it scrolls in its own box, which the keyboard can focus, its first column kept in view.
 */
export const Table: FC<PropsWithChildren<{ caption: Child; columns: readonly Column[]; wide?: boolean }>> = ({
  caption,
  columns,
  wide,
  children,
}) => (
  <div
    class={wide ? 'table-scroll wide' : 'table-scroll'}
    {...(wide ? { role: 'region', tabindex: 0, 'aria-label': typeof caption === 'string' ? caption : undefined } : {})}
  >
    <table>
      <caption>{caption}</caption>
      <thead>
        <tr>
          {columns.map((c) =>
            typeof c === 'string' ? (
              <th scope="col">{c}</th>
            ) : (
              <th scope="col" class="num">
                {c.label}
              </th>
            ),
          )}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  </div>
);

/** A form of one button posting the given fields: a row's own action (revoke, remove), named for screen readers by `label`. */
export const PostButton: FC<{
  csrf: string;
  action: string;
  fields?: Readonly<Record<string, string>>;
  text: string;
  label: string;
  kind?: 'secondary' | 'danger';
  /** A question the browser asks before sending (htmx's hx-confirm): for what cannot be undone lightly. */
  confirm?: string;
}> = ({ csrf, action, fields = {}, text, label, kind, confirm }) => (
  <form method="post" action={action} hx-confirm={confirm}>
    <Csrf token={csrf} />
    {Object.entries(fields).map(([field, value]) => (
      <input type="hidden" name={field} value={value} />
    ))}
    <button type="submit" class={kind} aria-label={label}>
      {text}
    </button>
  </form>
);

/** The page that shows a secret (an API secret, a signing secret) the one time it is ever shown, then leads back. */
export const ShownOnce: FC<{
  title: string;
  session: Session;
  csrf: string;
  notice: Child;
  facts: readonly (readonly [string, Child])[];
  back: readonly [string, string];
}> = ({ title, session, csrf, notice, facts, back }) => (
  <Page title={title} session={session} csrf={csrf} current="/console/admin">
    <Notice kind="info">{notice}</Notice>
    <dl class="facts">
      {facts.map(([term, value]) => (
        <>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </>
      ))}
    </dl>
    <p>
      <a href={back[0]}>{back[1]}</a>
    </p>
  </Page>
);

export const num = (label: string): Column => ({ label, num: true });

/** Disposition values as people read them (the cases domain's wording). */
export { dispositionLabel } from '../cases/index.js';
