import type { Context, Hono } from 'hono';
import { CASE_DISPOSITIONS, CASE_TRANSITIONS, type Case, type CaseStatus } from '../../cases/index.js';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.js';
import { partiesOf, type StoredTransaction } from '../../monitoring/index.js';
import { Badge, dispositionLabel, name, Select } from '../components.js';
import { DecisionExplanation, DecisionList } from '../decision.js';
import type { ConsoleEnv } from '../env.js';
import { actorOf, formText } from '../forms.js';
import { peopleOf } from '../people.js';
import { isWaiting } from '../../approvals/case-closing.js';
import { closeCases } from '../bulk-close.js';
import { ApprovalTable } from './approvals.js';
import { alertPageOf, CaseAlerts } from './case-alerts.js';
import { fmtTime, withId } from '../facts.js';
import { Csrf, Page, fmtDate } from '../layout.js';

/** The transaction a case explains: the one it was opened for, or the latest of the alerts grouped on its subject. */
async function transactionOf(c: Context<ConsoleEnv>, k: Case): Promise<StoredTransaction | undefined> {
  const id = k.record.type === 'transaction' ? k.record.id : k.alerts.at(-1)?.transactionId;
  if (id === undefined) return undefined;
  try {
    return await c.var.engine.monitoring.getTransaction(k.businessProfile, id);
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

const back = (c: Context<ConsoleEnv>, id: string) => c.redirect(`/console/cases/${encodeURIComponent(id)}`, 303);

/** One case: its record and why it was flagged, the timeline, comments with files, tasks, and the legal next steps. */
export function registerCase(app: Hono<ConsoleEnv>): void {
  app.get('/cases/:id', async (c) => {
    const { engine, session, csrf } = c.var;
    const k = await engine.cases.get(session.businessId, c.req.param('id'));
    const [closure, tx, users, requests, alerts, settings, fourEyes] = await Promise.all([
      engine.cases.closure(session.businessId, k._id),
      transactionOf(c, k),
      peopleOf(c),
      engine.approvals.list(session.businessId, { subject: { kind: 'case', id: k._id } }),
      alertPageOf(c, k),
      engine.cases.settings(session.businessId),
      engine.approvals.needsApproval(session.businessId, 'case.close'),
    ]);
    const closing = requests.find((r) => r.action === 'case.close' && r.status === 'pending');
    // Beside a transaction: the recent decisions of its user and of its sending account.
    const parties = tx
      ? partiesOf(tx.request)
          .filter((p) => p.kind !== 'device')
          .slice(0, 2)
      : [];
    const recent = await Promise.all(parties.map((p) => engine.monitoring.decisionsOf(session.businessId, p, 10)));
    const canChange = session.role !== 'auditor' && k.status !== 'closed';
    const nextStatuses = CASE_TRANSITIONS[k.status].filter((s) => s !== 'closed');
    const closable = CASE_TRANSITIONS[k.status].includes('closed') && !closure.pendingClosure && !closing;
    return c.html(
      <Page title={k.title} session={session} csrf={csrf} current="/console/queue">
        <div class="inline">
          <a href="/console/queue">← Queue</a>
          {session.role === 'auditor' ? null : (
            <form method="post" action="/console/queue/next">
              <Csrf token={csrf} />
              <button type="submit" class="secondary">
                Next case
              </button>
            </form>
          )}
        </div>
        <dl class="facts">
          <dt>Status</dt>
          <dd>
            <strong>{k.status}</strong>
            {closure.disposition ? ` (${dispositionLabel(closure.disposition)})` : ''}
          </dd>
          <dt>Priority</dt>
          <dd>
            <Badge value={k.priority} />
          </dd>
          <dt>Module</dt>
          <dd>{k.module}</dd>
          <dt>Record</dt>
          <dd>
            {k.record.type === 'customer' ? (
              <a href={`/console/customers/${encodeURIComponent(k.record.id)}`}>
                {k.record.type}: {withId(k.record.name, k.record.id)}
              </a>
            ) : (
              `${k.record.type}: ${withId(k.record.name, k.record.id)}`
            )}
          </dd>
          <dt>Assigned to</dt>
          <dd>{name(k.assignedTo)}</dd>
          <dt>Escalated</dt>
          <dd>{k.isEscalated ? 'yes' : 'no'}</dd>
          <dt>Opened</dt>
          <dd>
            {fmtTime(k.createdAt, settings.timeZone)} ({settings.timeZone})
          </dd>
          <dt>Description</dt>
          <dd>{k.description || '—'}</dd>
        </dl>

        {requests.length > 0 ? (
          <section aria-labelledby="requests-h" class="card">
            <h2 id="requests-h">Four-eyes requests</h2>
            <ApprovalTable caption="Requests about this case" rows={requests} />
          </section>
        ) : null}

        {closure.pendingClosure ? (
          <section aria-labelledby="approval-h" class="card">
            <h2 id="approval-h">Closure awaiting approval</h2>
            <p>
              {name(closure.pendingClosure.requestedBy)} asks to close this case as{' '}
              <strong>{dispositionLabel(closure.pendingClosure.disposition)}</strong>.
            </p>
            {session.role === 'auditor' ? null : closure.pendingClosure.requestedBy._id === session.user._id ? (
              <p class="muted">A second person must approve or reject it.</p>
            ) : (
              <div class="actions">
                <form method="post" action={`/console/cases/${k._id}/closure`}>
                  <Csrf token={csrf} />
                  <input type="hidden" name="decision" value="approve" />
                  <button type="submit">Approve closure</button>
                </form>
                <form method="post" action={`/console/cases/${k._id}/closure`}>
                  <Csrf token={csrf} />
                  <input type="hidden" name="decision" value="reject" />
                  <button type="submit" class="danger">
                    Reject closure
                  </button>
                </form>
              </div>
            )}
          </section>
        ) : null}

        {canChange ? (
          <section aria-labelledby="actions-h">
            <h2 id="actions-h">Actions</h2>
            <div class="actions">
              {nextStatuses.length > 0 && !closure.pendingClosure ? (
                <form method="post" action={`/console/cases/${k._id}/status`}>
                  <Csrf token={csrf} />
                  <Select id="status" label="Move to" name="status" options={nextStatuses.map((s) => [s, s] as const)} />
                  <button type="submit">Change status</button>
                </form>
              ) : null}
              <form method="post" action={`/console/cases/${k._id}/assign`}>
                <Csrf token={csrf} />
                <Select
                  id="assignee"
                  label="Assign to"
                  name="assignee"
                  value={k.assignedTo?._id ?? session.user._id}
                  options={users.filter((u) => u.role !== 'auditor').map((u) => [u._id, name(u)] as const)}
                />
                <button type="submit">Assign</button>
              </form>
              <form method="post" action={`/console/cases/${k._id}/escalate`}>
                <Csrf token={csrf} />
                <input type="hidden" name="escalated" value={k.isEscalated ? 'no' : 'yes'} />
                <button type="submit" class="secondary">
                  {k.isEscalated ? 'Withdraw escalation' : 'Escalate'}
                </button>
              </form>
              {closable ? (
                <form
                  method="post"
                  action={`/console/cases/${k._id}/close`}
                  hx-confirm="Close this case with the disposition and rationale given?"
                >
                  <Csrf token={csrf} />
                  <Select
                    id="disposition"
                    label="Disposition"
                    name="disposition"
                    options={CASE_DISPOSITIONS.map((d) => [d, dispositionLabel(d)] as const)}
                  />
                  <label for="rationale">Rationale</label>
                  <textarea id="rationale" name="rationale" required maxlength={2000} />
                  <button type="submit" class="danger">
                    {fourEyes ? 'Request closure (four eyes)' : 'Close case'}
                  </button>
                </form>
              ) : null}
            </div>
          </section>
        ) : null}

        <div class="grid">
          <div>
            <CaseAlerts caseId={k._id} list={alerts} timeZone={settings.timeZone} />
            {tx ? <DecisionExplanation tx={tx} /> : null}
            {/* In the wide column: a side column is too narrow for a decision's columns at 1280 px. */}
            {parties.map((p, i) => (
              <DecisionList caption={`Recent decisions of ${p.kind} ${p.value}`} decisions={recent[i] ?? []} />
            ))}
            <section aria-labelledby="comments-h">
              <h2 id="comments-h">Comments ({k.comments.length})</h2>
              {k.comments.map((m) => (
                <article class="card">
                  <p>
                    <strong>{name(m.user)}</strong> <span class="muted">{fmtDate(m.date)}</span>
                  </p>
                  <p>{m.text}</p>
                  {m.attachments.length > 0 ? (
                    <ul aria-label="Attachments">
                      {m.attachments.map((a) => (
                        <li>
                          <a href={`/console/files/${a.key}`} hx-boost="false">
                            {a.key}
                          </a>{' '}
                          <span class="muted">
                            ({a.contentType}, {a.size} bytes)
                          </span>
                        </li>
                      ))}
                    </ul>
                  ) : null}
                </article>
              ))}
              {canChange ? (
                <form method="post" action={`/console/cases/${k._id}/comments`}>
                  <Csrf token={csrf} />
                  <label for="comment">New comment</label>
                  <textarea id="comment" name="text" required />
                  <label for="file">Attach a file (pdf, png, jpg, csv, txt, json, xml, zip)</label>
                  <input id="file" type="file" data-upload-target="attachment-key" data-upload-status="upload-status" />
                  <input id="attachment-key" type="hidden" name="attachments" value="" />
                  <p id="upload-status" role="status" aria-live="polite" class="muted" />
                  <button type="submit">Add comment</button>
                </form>
              ) : null}
            </section>
            <section aria-labelledby="tasks-h">
              <h2 id="tasks-h">Tasks</h2>
              <ul>
                {k.tasks.map((t) => (
                  <li>
                    {canChange ? (
                      <form method="post" action={`/console/cases/${k._id}/tasks/${t._id}`} class="inline">
                        <Csrf token={csrf} />
                        <input type="hidden" name="done" value={t.status ? 'no' : 'yes'} />
                        <span>{t.status ? <s>{t.text}</s> : t.text}</span>
                        <button type="submit" class="secondary" aria-label={`${t.status ? 'Reopen' : 'Complete'} task: ${t.text}`}>
                          {t.status ? 'Reopen' : 'Complete'}
                        </button>
                      </form>
                    ) : (
                      <span>
                        {t.status ? '✓ ' : ''}
                        {t.text}
                      </span>
                    )}
                  </li>
                ))}
              </ul>
              {canChange ? (
                <form method="post" action={`/console/cases/${k._id}/tasks`} class="inline">
                  <Csrf token={csrf} />
                  <div>
                    <label for="task">New task</label>
                    <input id="task" name="text" required />
                  </div>
                  <button type="submit">Add task</button>
                </form>
              ) : null}
            </section>
          </div>
          <div>
            <section aria-labelledby="timeline-h">
              <h2 id="timeline-h">Timeline</h2>
              <ol class="timeline">
                {k.log.map((l) => (
                  <li>
                    <time datetime={l.date}>{fmtDate(l.date)}</time>
                    <strong>{name(l.user)}</strong>: {l.message} <span class="muted">[{l.status}]</span>
                  </li>
                ))}
              </ol>
            </section>
          </div>
        </div>
      </Page>,
    );
  });

  app.post('/cases/:id/status', async (c) => {
    const status = (await formText(c, 'status')) as CaseStatus;
    if (status === 'closed') throw new ValidationError('close a case with a disposition', 'status');
    await c.var.engine.cases.update(actorOf(c), c.req.param('id'), { status });
    return back(c, c.req.param('id'));
  });
  app.post('/cases/:id/assign', async (c) => {
    await c.var.engine.cases.update(actorOf(c), c.req.param('id'), { assignedTo: await formText(c, 'assignee') });
    return back(c, c.req.param('id'));
  });
  app.post('/cases/:id/escalate', async (c) => {
    await c.var.engine.cases.update(actorOf(c), c.req.param('id'), { isEscalated: (await formText(c, 'escalated')) === 'yes' });
    return back(c, c.req.param('id'));
  });
  app.post('/cases/:id/comments', async (c) => {
    const text = await formText(c, 'text');
    const key = await formText(c, 'attachments', { required: false });
    await c.var.engine.cases.addComment(actorOf(c), c.req.param('id'), { text, attachments: key ? [key] : [] });
    return back(c, c.req.param('id'));
  });
  app.post('/cases/:id/tasks', async (c) => {
    await c.var.engine.cases.addTask(actorOf(c), c.req.param('id'), await formText(c, 'text'));
    return back(c, c.req.param('id'));
  });
  app.post('/cases/:id/tasks/:taskId', async (c) => {
    const done = (await formText(c, 'done')) === 'yes';
    await c.var.engine.cases.setTaskStatus(actorOf(c), c.req.param('id'), c.req.param('taskId'), done);
    return back(c, c.req.param('id'));
  });
  app.post('/cases/:id/close', async (c) => {
    const caseId = c.req.param('id');
    const disposition = await formText(c, 'disposition', { max: 50 });
    const rationale = await formText(c, 'rationale', { max: 2000 });
    const [result] = (await closeCases(c, [caseId], disposition, rationale)).results;
    if (result && !result.ok) throw result.error === 'not_found' ? new NotFoundError(result.message) : new ConflictError(result.message);
    if (result && isWaiting(result)) return c.redirect(`/console/approvals/${result.requestId}`, 303);
    return back(c, caseId);
  });
  app.post('/cases/:id/closure', async (c) => {
    const decision = await formText(c, 'decision');
    if (decision !== 'approve' && decision !== 'reject') throw new ValidationError('decision must be approve or reject', 'decision');
    await c.var.engine.cases.decideClosure(actorOf(c), c.req.param('id'), decision === 'approve');
    return back(c, c.req.param('id'));
  });

  /** A case file: a short-lived signed URL of the business's own upload. */
  app.get('/files/:key', async (c) => {
    const { url } = await c.var.engine.uploads.describe(c.var.session.businessId, c.req.param('key'));
    const signed = new URL(url);
    return c.redirect(`${signed.pathname}${signed.search}`, 302);
  });

  app.get('/cases', (c) => c.redirect('/console/queue', 302));
}
