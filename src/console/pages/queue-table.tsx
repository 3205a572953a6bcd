import type { FC } from 'hono/jsx';
import { CASE_DISPOSITIONS, CASE_PRIORITIES, type CaseSort } from '../../cases/index.js';
import type { ListedCase } from '../../cases/index.js';
import type { TransactionFacts } from '../../monitoring/index.js';
import type { UserRef } from '../../users/index.js';
import { Badge, dispositionLabel, name, Select, Table } from '../components.js';
import { counterpartyOf, fmtAmount, fmtTime, withId } from '../facts.js';
import { Csrf } from '../layout.js';

export const SORT_OPTIONS: readonly (readonly [CaseSort, string])[] = [
  ['newest', 'Newest first'],
  ['oldest', 'Oldest first'],
  ['priority', 'Priority'],
  ['due', 'Due soonest'],
  ['updated', 'Recently updated'],
];

/** The latest alert of a case in one cell: the amount, then when and with whom, in the business's zone. */
const LatestAlert: FC<{ facts: TransactionFacts | undefined; timeZone: string }> = ({ facts, timeZone }) =>
  facts ? (
    <td>
      <strong class="amount">{fmtAmount(facts.amount, facts.currency)}</strong>
      <br />
      <span class="muted">
        <time datetime={facts.occurredAt}>{fmtTime(facts.occurredAt, timeZone)}</time>
        {facts.channel ? ` · ${facts.channel}` : ''}
      </span>
      <br />
      <span class="counterparty">{counterpartyOf(facts)}</span>
    </td>
  ) : (
    <td class="muted">—</td>
  );

/** The queue's table; each row's box selects the case for the bulk form below it. */
export const QueueTable: FC<{
  cases: ListedCase[];
  total: number;
  facts: Map<string, TransactionFacts>;
  timeZone: string;
  selectable: boolean;
}> = ({ cases, total, facts, timeZone, selectable }) => (
  <Table
    caption={
      <>
        {total} case{total === 1 ? '' : 's'}
      </>
    }
    columns={[
      ...(selectable ? ['Select'] : []),
      'Case',
      'Record',
      `Latest alert (${timeZone})`,
      'Priority',
      'Status',
      'Assignee',
      `Due (${timeZone})`,
    ]}
  >
    {cases.map((k) => (
      <tr>
        {selectable ? (
          <td>
            <input type="checkbox" name="caseIds" value={k._id} form="bulk" aria-label={`Select ${k.title}`} />
          </td>
        ) : null}
        <td>
          <a href={`/console/cases/${k._id}`}>{k.title}</a>
          {k.isEscalated ? (
            <>
              {' '}
              <Badge value="escalated" />
            </>
          ) : null}
        </td>
        <td>
          {k.record.type}: {withId(k.record.name, k.record.id)}
        </td>
        <LatestAlert facts={facts.get(k.alerts.at(-1)?.transactionId ?? '')} timeZone={timeZone} />
        <td>
          <Badge value={k.priority} />
        </td>
        <td>{k.status}</td>
        <td>{name(k.assignedTo)}</td>
        <td>
          {fmtTime(k.dueAt, timeZone)}
          {k.isOverdue ? (
            <>
              {' '}
              <Badge value="overdue" />
            </>
          ) : null}
        </td>
      </tr>
    ))}
  </Table>
);

/** One action over the selected cases: assign them, change their priority, or close them with one disposition and one rationale. */
export const BulkForm: FC<{ csrf: string; users: UserRef[]; me: string; closeNeedsApproval: boolean }> = ({
  csrf,
  users,
  me,
  closeNeedsApproval,
}) => (
  <form
    id="bulk"
    method="post"
    action="/console/queue/bulk"
    class="card"
    aria-label="Act on the selected cases"
    hx-confirm="Apply this action to every selected case?"
  >
    <Csrf token={csrf} />
    <h2>Selected cases</h2>
    <div class="inline">
      <Select
        id="bulk-action"
        label="Action"
        name="action"
        options={[
          ['assign', 'Assign'],
          ['priority', 'Change priority'],
          ['close', closeNeedsApproval ? 'Ask to close (four eyes)' : 'Close'],
        ]}
      />
      <Select id="bulk-assignee" label="Assign to" name="assignee" value={me} options={users.map((u) => [u._id, name(u)] as const)} />
      <Select id="bulk-priority" label="New priority" name="priority" value="high" options={CASE_PRIORITIES.map((p) => [p, p] as const)} />
      <Select
        id="bulk-disposition"
        label="Close as"
        name="disposition"
        options={CASE_DISPOSITIONS.map((d) => [d, dispositionLabel(d)] as const)}
      />
    </div>
    <label for="bulk-rationale">Rationale (required to close)</label>
    <textarea id="bulk-rationale" name="rationale" maxlength={2000} />
    <button type="submit">Apply to selected</button>
  </form>
);
