import type { Context, Hono } from 'hono';
import type { FC } from 'hono/jsx';
import { ACTION_LABELS, type ApprovalAction, type ApprovalRow } from '../../approvals/index.js';
import type { IssuedKey } from '../../auth/index.js';
import { ForbiddenError, ValidationError } from '../../errors.js';
import { personOf } from '../approvals.js';
import { Badge, Table } from '../components.js';
import { KeyShownOnce } from './admin-keys.js';
import type { ConsoleEnv } from '../env.js';
import { formText } from '../forms.js';
import { Csrf, fmtDate, Notice, Page } from '../layout.js';

/** Requests only an admin may answer: what an analyst could not do at once either. */
const ADMIN_ACTIONS: ReadonlySet<string> = new Set(['policy.change', 'apikey.create', 'apikey.revoke', 'ruleset.publish']);
const mayAnswer = (role: string, r: ApprovalRow) => role === 'admin' || (role === 'analyst' && !ADMIN_ACTIONS.has(r.action));

const label = (r: ApprovalRow) => ACTION_LABELS[r.action as ApprovalAction] ?? r.action;

/** Where a request's subject lives in the console, when it has a page. */
const subjectHref = (r: ApprovalRow) =>
  r.subject_kind === 'case'
    ? `/console/cases/${encodeURIComponent(r.subject_id)}`
    : r.subject_kind === 'customer'
      ? `/console/customers/${encodeURIComponent(r.subject_id)}`
      : r.subject_kind === 'list'
        ? '/console/lists'
        : r.subject_kind === 'api-key'
          ? '/console/admin/keys'
          : r.subject_kind === 'ruleset'
            ? '/console/rules/shadow'
            : '/console/admin';

/** Requests as rows: when, what, who asked and why, and where it stands. */
export const ApprovalTable: FC<{ caption: string; rows: readonly ApprovalRow[] }> = ({ caption, rows }) => (
  <Table caption={caption} columns={['Asked', 'Action', 'What', 'Asked by', 'Why', 'Status', 'Answered by']}>
    {rows.map((r) => (
      <tr>
        <td>
          <a href={`/console/approvals/${r.request_id}`}>{fmtDate(r.requested_at)}</a>
        </td>
        <td>{label(r)}</td>
        <td>
          <a href={subjectHref(r)}>{r.summary}</a>
        </td>
        <td>{r.maker_name}</td>
        <td>{r.reason || '—'}</td>
        <td>
          <Badge value={r.status} />
        </td>
        <td>{r.checker_name ? `${r.checker_name}${r.decision_reason ? `: ${r.decision_reason}` : ''}` : '—'}</td>
      </tr>
    ))}
  </Table>
);

async function requestPage(c: Context<ConsoleEnv>, id: string, error?: string) {
  const { engine, session, csrf } = c.var;
  const r = await engine.approvals.get(session.businessId, id);
  const own = r.maker_id === session.user._id;
  const canAnswer = r.status === 'pending' && !own && mayAnswer(session.role, r);
  return c.html(
    <Page title={`Approval request: ${label(r)}`} session={session} csrf={csrf} current="/console/approvals">
      <p>
        <a href="/console/approvals">← Approvals</a>
      </p>
      {error ? <Notice kind="error">{error}</Notice> : null}
      <dl class="facts">
        <dt>What</dt>
        <dd>
          <a href={subjectHref(r)}>{r.summary}</a>
        </dd>
        <dt>Asked by</dt>
        <dd>
          {r.maker_name} {r.maker_kind === 'api-key' ? '(through the API)' : null}, {fmtDate(r.requested_at)}
        </dd>
        <dt>Why</dt>
        <dd>{r.reason || '—'}</dd>
        <dt>Status</dt>
        <dd>
          <Badge value={r.status} />
        </dd>
        {r.checker_name ? (
          <>
            <dt>Answered by</dt>
            <dd>
              {r.checker_name}, {fmtDate(r.decided_at)}
              {r.decision_reason ? `: ${r.decision_reason}` : ''}
            </dd>
          </>
        ) : null}
        {r.error ? (
          <>
            <dt>Effect failed</dt>
            <dd>{r.error}</dd>
          </>
        ) : null}
      </dl>
      {r.status === 'pending' && own ? (
        <Notice kind="info">You asked for this: it takes effect when someone else approves it.</Notice>
      ) : null}
      {canAnswer ? (
        <form method="post" action={`/console/approvals/${r.request_id}`} class="stacked">
          <Csrf token={csrf} />
          <div>
            <label for="a-reason">Reason (required to reject)</label>
            <textarea id="a-reason" name="reason" maxlength={2000} />
          </div>
          <div class="actions">
            <button type="submit" name="decision" value="approve">
              Approve
            </button>
            <button type="submit" name="decision" value="reject" class="danger">
              Reject
            </button>
          </div>
        </form>
      ) : null}
    </Page>,
  );
}

/** The approvals inbox: what waits for a second person, and what was answered lately. */
export function registerApprovals(app: Hono<ConsoleEnv>): void {
  app.get('/approvals', async (c) => {
    const { engine, session, csrf } = c.var;
    const [pending, decided] = await Promise.all([
      engine.approvals.list(session.businessId, { pending: true }),
      engine.approvals.list(session.businessId, { pending: false, limit: 50 }),
    ]);
    return c.html(
      <Page title="Approvals" session={session} csrf={csrf} current="/console/approvals">
        {pending.length === 0 ? <p>No request waits for a second person.</p> : null}
        <ApprovalTable caption={`Waiting for a second person (${pending.length})`} rows={pending} />
        <ApprovalTable caption="Answered lately" rows={decided} />
      </Page>,
    );
  });

  app.get('/approvals/:id', (c) => requestPage(c, c.req.param('id')));

  app.post('/approvals/:id', async (c) => {
    const decision = await formText(c, 'decision');
    if (decision !== 'approve' && decision !== 'reject') throw new ValidationError('decision must be approve or reject', 'decision');
    const reason = await formText(c, 'reason', { required: decision === 'reject', max: 2000 });
    const { engine, session, csrf } = c.var;
    if (!mayAnswer(session.role, await engine.approvals.get(session.businessId, c.req.param('id'))))
      throw new ForbiddenError('Only an admin answers a request about the policy, API keys or publishing rules');
    const { row, result } = await engine.approvals.decide(
      session.businessId,
      personOf(c),
      c.req.param('id'),
      decision === 'approve',
      reason,
    );
    if (row.action === 'apikey.create' && row.status === 'approved') {
      return c.html(
        <KeyShownOnce
          session={session}
          csrf={csrf}
          issued={result as IssuedKey}
          notice={`You approved the key ${JSON.parse(row.payload).name}. Its secret is shown only now, to you: hand it to the machine that will use it.`}
          back={['/console/approvals', 'Back to approvals']}
        />,
      );
    }
    return c.redirect(`/console/approvals/${row.request_id}`, 303);
  });
}
