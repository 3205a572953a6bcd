import type { Context, Hono } from 'hono';
import { ValidationError } from '../../errors.js';
import { LISTS, MonitoringService } from '../../monitoring/index.js';
import type { ConsoleEnv } from '../env.js';
import { name, PostButton, Select, Table } from '../components.js';
import { peopleOf } from '../people.js';
import { Csrf, Page, fmtDate } from '../layout.js';
import { afterGate, personOf } from '../approvals.js';
import { actorOf, formText } from '../forms.js';

type ListKind = keyof typeof LISTS;
const KINDS = Object.keys(LISTS) as ListKind[];
const isKind = (v: string): v is ListKind => Object.hasOwn(LISTS, v);

/** The blacklists the instant path stops on: users, VAS receivers, devices and accounts, with add and remove. */
export function registerLists(app: Hono<ConsoleEnv>): void {
  app.get('/lists', async (c) => {
    const { engine, session, csrf } = c.var;
    const [lists, people] = await Promise.all([
      Promise.all(KINDS.map((k) => engine.monitoring.listBlacklist(session.businessId, k, { page: 1, limit: 200 }))),
      peopleOf(c),
    ]);
    // Entries record who added them by id: a person's name, else the id (an API key's actor) as recorded.
    const names = new Map(people.map((u) => [u._id, name(u)]));
    const canChange = session.role !== 'auditor';
    return c.html(
      <Page title="Lists" session={session} csrf={csrf} current="/console/lists">
        {canChange ? (
          <form method="post" action="/console/lists" class="inline" aria-label="Add to a blacklist">
            <Csrf token={csrf} />
            <Select id="l-kind" label="List" name="list" options={KINDS.map((k) => [k, `${MonitoringService.listLabel(k)}s`] as const)} />
            <div>
              <label for="l-value">Value</label>
              <input id="l-value" name="value" required maxlength={256} />
            </div>
            <div>
              <label for="l-reason">Why</label>
              <input id="l-reason" name="reason" maxlength={500} />
            </div>
            <button type="submit">Add to blacklist</button>
          </form>
        ) : null}
        {KINDS.map((k, i) => (
          <Table
            caption={
              <>
                Blacklisted {MonitoringService.listLabel(k).toLowerCase()}s ({lists[i]!.total}){' '}
                <span class="muted">— rule list {LISTS[k].ruleList}</span>
              </>
            }
            columns={['Value', 'Added', 'By', ...(canChange ? ['Remove'] : [])]}
          >
            {lists[i]!.total === 0 ? (
              <tr>
                <td colspan={canChange ? 4 : 3} class="muted">
                  No {MonitoringService.listLabel(k).toLowerCase()} is blacklisted.
                </td>
              </tr>
            ) : null}
            {lists[i]!.entries.map((e) => (
              <tr>
                <td>{e.value}</td>
                <td>{fmtDate(e.addedAt)}</td>
                <td>{e.addedBy ? (names.get(e.addedBy) ?? e.addedBy) : '—'}</td>
                {canChange ? (
                  <td>
                    <PostButton
                      csrf={csrf}
                      action="/console/lists/remove"
                      fields={{ list: k, value: e.value }}
                      text="Remove"
                      label={`Remove ${e.value} from the ${MonitoringService.listLabel(k)} blacklist`}
                      kind="secondary"
                      confirm={`Remove ${e.value} from the ${MonitoringService.listLabel(k).toLowerCase()} blacklist?`}
                    />
                  </td>
                ) : null}
              </tr>
            ))}
          </Table>
        ))}
      </Page>,
    );
  });

  const entry = async (c: { req: { parseBody(): Promise<Record<string, unknown>> } }) => {
    const body = await c.req.parseBody();
    const list = typeof body.list === 'string' ? body.list : '';
    const value = typeof body.value === 'string' ? body.value.trim() : '';
    if (!isKind(list)) throw new ValidationError(`list must be one of: ${KINDS.join(', ')}`, 'list');
    if (!value) throw new ValidationError('value is required', 'value');
    return { list, value };
  };
  /** Adding and removing entries, at once or as a request for a second person when the policy says so. */
  const change = (action: 'list.add' | 'list.remove') => async (c: Context<ConsoleEnv>) => {
    const { list, value } = await entry(c);
    const reason = await formText(c, 'reason', { required: false, max: 500 });
    const { engine, session } = c.var;
    const label = MonitoringService.listLabel(list).toLowerCase();
    const gated = await engine.approvals.gate(
      session.businessId,
      personOf(c),
      {
        action,
        subject: { kind: 'list', id: list },
        summary: action === 'list.add' ? `Add ${value} to the ${label} blacklist` : `Remove ${value} from the ${label} blacklist`,
        payload: { list, value },
        reason,
      },
      async () => {
        if (action === 'list.add') await engine.monitoring.addToBlacklist(actorOf(c), list, value);
        else await engine.monitoring.removeFromBlacklist(actorOf(c), list, value);
      },
    );
    return afterGate(c, gated, '/console/lists');
  };
  app.post('/lists', change('list.add'));
  app.post('/lists/remove', change('list.remove'));
}
