import type { Context, Hono } from 'hono';
import {
  CASE_MODULES,
  CASE_PRIORITIES,
  CASE_SORTS,
  CASE_STATUSES,
  type BulkResult,
  type CaseFilters,
  type CasePriority,
} from '../../cases/index.js';
import type { ConsoleEnv } from '../env.js';
import { peopleOf } from '../people.js';
import { Csrf, Notice, Page } from '../layout.js';
import { name, Pager, pastLastPage, Select } from '../components.js';
import { actorOf, formText, formValues } from '../forms.js';
import { ValidationError } from '../../errors.js';
import { closeCases } from '../bulk-close.js';
import { BulkForm, QueueTable, SORT_OPTIONS } from './queue-table.js';

const AGES = [
  ['', 'Any age'],
  ['1', 'Older than 1 day'],
  ['3', 'Older than 3 days'],
  ['7', 'Older than 7 days'],
  ['30', 'Older than 30 days'],
] as const;
const LIMIT = 25;

const withoutStatus = ({ status: _, ...rest }: CaseFilters) => rest;

const pick = <T extends string>(value: string | undefined, allowed: readonly T[]): T | undefined =>
  value !== undefined && (allowed as readonly string[]).includes(value) ? (value as T) : undefined;

/** The queue's filters from the query string; unknown values are ignored rather than refused, as in any search form. */
async function filtersOf(c: Context<ConsoleEnv>) {
  const { engine, session } = c.var;
  const q = (k: string) => c.req.query(k) || undefined;
  const me = session.user._id;
  const assignee = q('assignee') ?? '';
  const days = Number(q('age'));
  const search = q('q')?.trim().slice(0, 200);
  const now = engine.clock.now();
  const { dueHours, timeZone } = await engine.cases.settings(session.businessId);
  // An account number finds the cases of the decisions that name it (as sender or receiver).
  const byAccount = search ? await engine.monitoring.decisionsOf(session.businessId, { kind: 'account', value: search }, 200) : [];
  const filters: CaseFilters = {
    status: pick(q('status'), CASE_STATUSES),
    priority: pick(q('priority'), CASE_PRIORITIES),
    module: pick(q('module'), CASE_MODULES),
    assignedTo: assignee === 'me' ? me : assignee && assignee !== 'none' ? assignee : undefined,
    unassigned: assignee === 'none' || undefined,
    search: search ? { text: search, caseIds: byAccount.flatMap((d) => (d.caseId ? [d.caseId] : [])) } : undefined,
    openedBefore: days > 0 ? new Date(now.getTime() - days * 86_400_000).toISOString() : undefined,
    overdue: q('overdue') ? { now: now.toISOString(), dueHours } : undefined,
  };
  const page = Math.max(1, Math.min(10_000, Number.parseInt(q('page') ?? '1', 10) || 1));
  return { filters, sort: pick(q('sort'), CASE_SORTS) ?? 'newest', page, assignee, search, timeZone };
}

const count = (c: Context<ConsoleEnv>, key: string) => Number.parseInt(c.req.query(key) ?? '', 10) || 0;

/** What the last bulk action or "next case" did, from the redirect's query (numbers only). */
function outcome(c: Context<ConsoleEnv>): string | undefined {
  if (c.req.query('next') === 'none') return 'No case is waiting: every active case is assigned.';
  if (c.req.query('bulk') === undefined) return undefined;
  const [done, refused, waiting] = [count(c, 'done'), count(c, 'refused'), count(c, 'waiting')];
  return [
    `${done} case${done === 1 ? '' : 's'} changed`,
    waiting ? `${waiting} closure${waiting === 1 ? '' : 's'} waiting for a second person` : '',
    refused ? `${refused} refused (closed already or not allowed)` : '',
  ]
    .filter(Boolean)
    .join('; ');
}

/** The work queue: cases by status with counts, filters, sorting and pages. */
export function registerQueue(app: Hono<ConsoleEnv>): void {
  app.get('/queue', async (c) => {
    const { engine, session, csrf } = c.var;
    const businessId = session.businessId;
    const { filters, sort, page, assignee, search, timeZone } = await filtersOf(c);
    const [{ cases, total }, counts, users, closeNeedsApproval] = await Promise.all([
      engine.cases.list(businessId, filters, { page, limit: LIMIT }, sort),
      engine.cases.read.countsByStatus(businessId, withoutStatus(filters)),
      peopleOf(c),
      engine.approvals.needsApproval(businessId, 'case.close'),
    ]);
    const past = pastLastPage(c, page, total, LIMIT);
    if (past) return past;
    // Each case's latest alert, all read in one query.
    const latest = cases.flatMap((k) => k.alerts.slice(-1).map((a) => a.transactionId));
    const facts = await engine.monitoring.transactionFacts(businessId, latest);
    const canChange = session.role !== 'auditor';
    const said = outcome(c);
    const query = new URL(c.req.url).searchParams;
    const tab = (status: string) => {
      const next = new URLSearchParams(query);
      next.delete('page');
      if (status) next.set('status', status);
      else next.delete('status');
      return `/console/queue?${next}`;
    };
    const all = [...counts.values()].reduce((a, b) => a + b, 0);
    return c.html(
      <Page title="Queue" session={session} csrf={csrf} current="/console/queue">
        {said ? <Notice kind="info">{said}</Notice> : null}
        {canChange ? (
          <form method="post" action="/console/queue/next" class="inline">
            <Csrf token={csrf!} />
            <button type="submit">Next case</button>
            <span class="muted">takes the most urgent case nobody holds and assigns it to you</span>
          </form>
        ) : null}
        <ul class="tabs" aria-label="Cases by status">
          <li>
            <a href={tab('')} aria-current={filters.status ? undefined : 'true'}>
              All ({all})
            </a>
          </li>
          {CASE_STATUSES.map((s) => (
            <li>
              <a href={tab(s)} aria-current={filters.status === s ? 'true' : undefined}>
                {s} ({counts.get(s) ?? 0})
              </a>
            </li>
          ))}
        </ul>
        <form method="get" action="/console/queue" class="inline" aria-label="Filter cases">
          {filters.status ? <input type="hidden" name="status" value={filters.status} /> : null}
          <Select
            id="f-priority"
            label="Priority"
            name="priority"
            value={filters.priority}
            options={[['', 'Any'], ...CASE_PRIORITIES.map((p) => [p, p] as const)]}
          />
          <Select
            id="f-module"
            label="Module"
            name="module"
            value={filters.module}
            options={[['', 'Any'], ...CASE_MODULES.map((m) => [m, m] as const)]}
          />
          <Select
            id="f-assignee"
            label="Assignee"
            name="assignee"
            value={assignee}
            options={[['', 'Anyone'], ['me', 'Assigned to me'], ['none', 'Nobody'], ...users.map((u) => [u._id, name(u)] as const)]}
          />
          <Select id="f-age" label="Age" name="age" value={c.req.query('age') ?? ''} options={AGES} />
          <div>
            <label for="f-q">Reference, account or name</label>
            <input id="f-q" name="q" type="search" value={search ?? ''} />
          </div>
          <div>
            <label for="f-overdue">
              <input id="f-overdue" name="overdue" type="checkbox" value="1" checked={filters.overdue !== undefined} /> Overdue only
            </label>
          </div>
          <Select id="f-sort" label="Sort by" name="sort" value={sort} options={SORT_OPTIONS} />
          <button type="submit">Filter</button>
          <a href="/console/queue?assignee=me">Assigned to me</a>
        </form>
        {total === 0 ? <p class="muted">No case matches these filters.</p> : null}
        <QueueTable cases={cases} total={total} facts={facts} timeZone={timeZone} selectable={canChange} />
        <Pager base="/console/queue" query={query} page={page} limit={LIMIT} total={total} />
        {canChange && cases.length > 0 ? (
          <BulkForm
            csrf={csrf!}
            users={users.filter((u) => u.role !== 'auditor')}
            me={session.user._id}
            closeNeedsApproval={closeNeedsApproval}
          />
        ) : null}
      </Page>,
    );
  });

  app.post('/queue/next', async (c) => {
    const caseId = await c.var.engine.cases.takeNext(actorOf(c));
    return c.redirect(caseId ? `/console/cases/${encodeURIComponent(caseId)}` : '/console/queue?next=none', 303);
  });

  app.post('/queue/bulk', async (c) => {
    const caseIds = await formValues(c, 'caseIds');
    if (caseIds.length === 0) throw new ValidationError('caseIds: select at least one case', 'caseIds');
    const action = await formText(c, 'action', { max: 20 });
    const counted = (outcomes: BulkResult[]) => {
      const done = outcomes.filter((o) => o.ok).length;
      return { done, refused: outcomes.length - done, waiting: 0 };
    };
    let results: { done: number; refused: number; waiting: number };
    if (action === 'assign') {
      const assignedTo = await formText(c, 'assignee', { max: 100 });
      results = counted(await c.var.engine.cases.bulk(actorOf(c), { caseIds }, { type: 'assign', assignedTo }));
    } else if (action === 'priority') {
      const priority = (await formText(c, 'priority', { max: 20 })) as CasePriority;
      results = counted(await c.var.engine.cases.bulk(actorOf(c), { caseIds }, { type: 'priority', priority }));
    } else if (action === 'close') {
      const disposition = await formText(c, 'disposition', { max: 50 });
      results = await closeCases(c, caseIds, disposition, await formText(c, 'rationale', { required: false, max: 2000 }));
    } else throw new ValidationError('action must be assign, priority or close', 'action');
    return c.redirect(`/console/queue?bulk=1&done=${results.done}&refused=${results.refused}&waiting=${results.waiting}`, 303);
  });
}
