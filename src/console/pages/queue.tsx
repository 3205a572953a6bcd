import type { Context, Hono } from 'hono';
import { CASE_MODULES, CASE_PRIORITIES, CASE_SORTS, CASE_STATUSES, type CaseFilters, type CaseSort } from '../../cases/index.js';
import type { ConsoleEnv } from '../env.js';
import { peopleOf } from '../people.js';
import { Page, fmtDate } from '../layout.js';
import { Badge, name, Pager, Select, Table } from '../components.js';

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
function filtersOf(c: Context<ConsoleEnv>): { filters: CaseFilters; sort: CaseSort; page: number; assignee: string } {
  const q = (k: string) => c.req.query(k) || undefined;
  const me = c.var.session.user._id;
  const assignee = q('assignee') ?? '';
  const days = Number(q('age'));
  const filters: CaseFilters = {
    status: pick(q('status'), CASE_STATUSES),
    priority: pick(q('priority'), CASE_PRIORITIES),
    module: pick(q('module'), CASE_MODULES),
    assignedTo: assignee === 'me' ? me : assignee || undefined,
    recordSearch: q('customer')?.slice(0, 200),
    openedBefore: days > 0 ? new Date(c.var.engine.clock.now().getTime() - days * 86_400_000).toISOString() : undefined,
  };
  const page = Math.max(1, Math.min(10_000, Number.parseInt(q('page') ?? '1', 10) || 1));
  return { filters, sort: pick(q('sort'), CASE_SORTS) ?? 'newest', page, assignee };
}

/** The work queue: cases by status with counts, filters, sorting and pages. */
export function registerQueue(app: Hono<ConsoleEnv>): void {
  app.get('/queue', async (c) => {
    const { engine, session, csrf } = c.var;
    const businessId = session.businessId;
    const { filters, sort, page, assignee } = filtersOf(c);
    const [{ cases, total }, counts, users] = await Promise.all([
      engine.cases.list(businessId, filters, { page, limit: LIMIT }, sort),
      engine.cases.read.countsByStatus(businessId, withoutStatus(filters)),
      peopleOf(c),
    ]);
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
            options={[['', 'Anyone'], ['me', 'Assigned to me'], ...users.map((u) => [u._id, name(u)] as const)]}
          />
          <Select id="f-age" label="Age" name="age" value={c.req.query('age') ?? ''} options={AGES} />
          <div>
            <label for="f-customer">Customer or record</label>
            <input id="f-customer" name="customer" type="search" value={filters.recordSearch ?? ''} />
          </div>
          <Select
            id="f-sort"
            label="Sort by"
            name="sort"
            value={sort}
            options={[
              ['newest', 'Newest first'],
              ['oldest', 'Oldest first'],
              ['priority', 'Priority'],
              ['updated', 'Recently updated'],
            ]}
          />
          <button type="submit">Filter</button>
          <a href="/console/queue?assignee=me">Assigned to me</a>
        </form>
        <Table
          caption={
            <>
              {total} case{total === 1 ? '' : 's'}
            </>
          }
          columns={['Case', 'Record', 'Module', 'Priority', 'Status', 'Assignee', 'Opened', 'Updated']}
        >
          {cases.map((k) => (
            <tr>
              <td>
                <a href={`/console/cases/${k._id}`}>{k.title}</a>
                {k.isEscalated ? (
                  <>
                    {' '}
                    <Badge value="escalated" />
                  </>
                ) : null}
                {k.isOverdue ? (
                  <>
                    {' '}
                    <Badge value="overdue" />
                  </>
                ) : null}
              </td>
              <td>
                {k.record.type}: {k.record.name}
              </td>
              <td>{k.module}</td>
              <td>
                <Badge value={k.priority} />
              </td>
              <td>{k.status}</td>
              <td>{name(k.assignedTo)}</td>
              <td>{fmtDate(k.createdAt)}</td>
              <td>{fmtDate(k.updatedAt)}</td>
            </tr>
          ))}
        </Table>
        <Pager base="/console/queue" query={query} page={page} limit={LIMIT} total={total} />
      </Page>,
    );
  });
}
