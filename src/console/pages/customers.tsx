import type { Context, Hono } from 'hono';
import { customerName, type CustomerView, type ReviewedMatch, type ScreeningMatch } from '../../cdd/index.js';
import { NotFoundError, ValidationError } from '../../errors.js';
import type { DecisionSummary } from '../../monitoring/index.js';
import type { User } from '../../users/index.js';
import { Badge, dispositionLabel, name, num, Table } from '../components.js';
import { DecisionList } from '../decision.js';
import type { ConsoleEnv } from '../env.js';
import { afterGate, personOf } from '../approvals.js';
import { ApprovalTable } from './approvals.js';
import { peopleOf } from '../people.js';
import { Csrf, Notice, Page, fmtDate } from '../layout.js';

const SCREENED = ['sanctions', 'pep'] as const;
type Screened = (typeof SCREENED)[number];
const KIND_LABEL: Record<Screened, string> = { sanctions: 'Sanctions', pep: 'PEP' };
const REVIEWS = { found: 'Confirm (found)', 'not found': 'Dismiss (not found)' } as const;

/** Who reviewed: a person of the business by name, else what the domain recorded (an API key's name or id). */
const reviewer = (people: ReadonlyMap<string, User>, id: string | null, byName: string | null) =>
  (id && people.has(id) ? name(people.get(id)) : null) ?? byName ?? id ?? '—';

/** The user's and each account's decisions, newest first, each once. */
async function recentDecisions(c: Context<ConsoleEnv>, view: CustomerView): Promise<DecisionSummary[]> {
  const { engine, session } = c.var;
  const parties = [
    { kind: 'user' as const, value: view.doc.uniqueId },
    ...(view.doc.accounts ?? []).map((a) => ({ kind: 'account' as const, value: a.accountNumber })),
  ];
  const lists = await Promise.all(parties.map((p) => engine.monitoring.decisionsOf(session.businessId, p, 20)));
  const byId = new Map(lists.flat().map((d) => [d.transactionId, d]));
  return [...byId.values()].sort((a, b) => b.decidedAt.localeCompare(a.decidedAt)).slice(0, 20);
}

async function customerPage(c: Context<ConsoleEnv>, id: string) {
  const { engine, session, csrf } = c.var;
  const businessId = session.businessId;
  const view = await engine.cdd.customers.get(businessId, id);
  const uniqueId = view.doc.uniqueId;
  const [requests, { cases }, decisions, users, approvals] = await Promise.all([
    engine.cdd.requests.list(businessId, uniqueId, { page: 1, limit: 20 }),
    engine.cases.list(businessId, { recordId: uniqueId }, { page: 1, limit: 50 }, 'newest'),
    recentDecisions(c, view),
    peopleOf(c),
    engine.approvals.list(businessId, { subject: { kind: 'customer', id: uniqueId } }),
  ]);
  const people = new Map(users.map((u) => [u._id, u]));
  const closures = await Promise.all(cases.map((k) => engine.cases.closure(businessId, k._id)));
  const matches = await Promise.all(
    requests.data
      .filter((r) => r.status === 'awaiting confirmation' || r.status === 'completed')
      .map(async (r) => ({ request: r, matches: await engine.cdd.requests.matches(businessId, r._id, SCREENED) })),
  );
  const canReview = session.role !== 'auditor';
  const { doc, risk } = view;
  const checks = Object.entries(view.checks.customer ?? {});
  return c.html(
    <Page title={customerName(doc) || uniqueId} session={session} csrf={csrf} current="/console/customers">
      <p>
        <a href="/console/customers">← Customers</a>
      </p>
      <dl class="facts">
        <dt>Customer id</dt>
        <dd>{uniqueId}</dd>
        <dt>Type</dt>
        <dd>{doc.type}</dd>
        <dt>Status</dt>
        <dd>{doc.status ?? '—'}</dd>
        <dt>Risk rating</dt>
        <dd>
          {risk ? (
            <>
              <Badge value={risk.overallRating} /> score {risk.overallScore}
              {risk.autoHighRiskCategories.length > 0 ? ` (high by rule: ${risk.autoHighRiskCategories.join(', ')})` : ''}, assessed{' '}
              {fmtDate(risk.computedAt)}
            </>
          ) : (
            'not assessed'
          )}
        </dd>
        <dt>Created</dt>
        <dd>{fmtDate(view.createdAt)}</dd>
        <dt>Updated</dt>
        <dd>{fmtDate(view.updatedAt)}</dd>
      </dl>
      {risk && risk.factors.length > 0 ? (
        <Table caption="Risk factors" columns={['Factor', num('Score'), 'Why']}>
          {risk.factors.map((f) => (
            <tr>
              <td>{f.title}</td>
              <td class="num">{f.score}</td>
              <td>{f.reason}</td>
            </tr>
          ))}
        </Table>
      ) : null}
      {approvals.length > 0 ? <ApprovalTable caption="Four-eyes requests about this customer" rows={approvals} /> : null}
      <div class="grid">
        <div>
          <section aria-labelledby="matches-h">
            <h2 id="matches-h">Screening matches</h2>
            {matches.length === 0 ? <p class="muted">No CDD request has screening results yet.</p> : null}
            {matches.flatMap(({ request, matches: found }) =>
              SCREENED.map((kind) => {
                const list = (found[kind] ?? []) as ReviewedMatch<ScreeningMatch>[];
                if (list.length === 0) return null;
                return (
                  <Table
                    caption={`${KIND_LABEL[kind]} matches of request ${request._id} (${request.workflow.name}, ${request.status})`}
                    columns={['Candidate', num('Confidence'), 'For', 'Review']}
                  >
                    {list.map((m, index) => (
                      <tr>
                        <td>
                          <strong>{m.name}</strong> <span class="muted">({m.listName})</span>
                          {m.birth_date ? <div class="muted">born {m.birth_date}</div> : null}
                          {m.countries.length > 0 ? <div class="muted">countries {m.countries.join(', ')}</div> : null}
                        </td>
                        <td class="num">{m.confidenceScore}</td>
                        <td>
                          {m.subject.role}: {m.subject.name}
                        </td>
                        <td>
                          <p>
                            <Badge value={m.reviewStatus} />{' '}
                            {m.reviewDate ? `by ${reviewer(people, m.reviewedBy, m.reviewedByName)} at ${fmtDate(m.reviewDate)}` : ''}
                          </p>
                          {m.reviewHistory.length > 0 ? (
                            <ol class="timeline" aria-label={`Review history of ${m.name}`}>
                              {m.reviewHistory.map((h) => (
                                <li>
                                  <time datetime={h.at}>{fmtDate(h.at)}</time>
                                  <strong>{reviewer(people, h.by, h.byName ?? null)}</strong>: {h.from ?? 'pending'} → {h.to}
                                  {h.note ? `: ${h.note}` : ''}
                                </li>
                              ))}
                            </ol>
                          ) : null}
                          {canReview ? (
                            <form method="post" action={`/console/customers/${encodeURIComponent(uniqueId)}/review`}>
                              <Csrf token={csrf} />
                              <input type="hidden" name="requestId" value={request._id} />
                              <input type="hidden" name="type" value={kind} />
                              <input type="hidden" name="index" value={String(index)} />
                              <label for={`note-${request._id}-${kind}-${index}`}>Note on {m.name}</label>
                              <textarea id={`note-${request._id}-${kind}-${index}`} name="note" required maxlength={2000} />
                              <div class="actions">
                                {(Object.keys(REVIEWS) as (keyof typeof REVIEWS)[])
                                  .filter((s) => s !== m.reviewStatus)
                                  .map((s) => (
                                    <button
                                      type="submit"
                                      name="status"
                                      value={s}
                                      class={s === 'found' ? 'danger' : 'secondary'}
                                      aria-label={`${REVIEWS[s]}: ${m.name}`}
                                    >
                                      {REVIEWS[s]}
                                    </button>
                                  ))}
                              </div>
                            </form>
                          ) : null}
                        </td>
                      </tr>
                    ))}
                  </Table>
                );
              }),
            )}
          </section>
          <DecisionList caption="Recent decisions of the customer and their accounts" decisions={decisions} />
          <Table caption={`Cases (${cases.length})`} columns={['Case', 'Status', 'Priority', 'Opened']}>
            {cases.map((k, i) => (
              <tr>
                <td>
                  <a href={`/console/cases/${k._id}`}>{k.title}</a>
                </td>
                <td>
                  {k.status}
                  {closures[i]?.disposition ? ` (${dispositionLabel(closures[i].disposition)})` : ''}
                </td>
                <td>
                  <Badge value={k.priority} />
                </td>
                <td>{fmtDate(k.createdAt)}</td>
              </tr>
            ))}
          </Table>
        </div>
        <div>
          <Table caption="CDD requests" columns={['Request', 'Status', 'Risk', 'Created']}>
            {requests.data.map((r) => (
              <tr>
                <td class="wrap">
                  {r.workflow.name}
                  <div class="muted">{r._id}</div>
                </td>
                <td>{r.status}</td>
                <td>{r.overallRiskLevel ? `${r.overallRiskLevel.riskScore} (${r.overallRiskLevel.history.length} in history)` : '—'}</td>
                <td>{fmtDate(r.createdAt)}</td>
              </tr>
            ))}
          </Table>
          <Table caption="Checks" columns={['Check', 'Results']}>
            {checks.map(([check, { results }]) => (
              <tr>
                <td>{check}</td>
                <td>{results.map((r) => `${r.name}: ${r.result}`).join('; ') || '—'}</td>
              </tr>
            ))}
          </Table>
          <Table caption="Accounts" columns={['Account', 'Type', 'Currency', 'Status']}>
            {(doc.accounts ?? []).map((a) => (
              <tr>
                <td>
                  <a href={`/console/transactions?account=${encodeURIComponent(a.accountNumber)}`}>{a.accountNumber}</a>
                </td>
                <td>{a.accountType ?? '—'}</td>
                <td>{a.accountCurrency ?? '—'}</td>
                <td>{a.accountStatus ?? '—'}</td>
              </tr>
            ))}
          </Table>
          <Table caption="Documents" columns={['Document', 'Number', 'Status']}>
            {(doc.kycDocuments ?? []).map((d) => (
              <tr>
                <td>{d.type}</td>
                <td>{d.documentNumber ?? '—'}</td>
                <td>{d.status ?? '—'}</td>
              </tr>
            ))}
          </Table>
        </div>
      </div>
    </Page>,
  );
}

/** A customer found by id or account number: the CDD record, screening matches to review, decisions and cases. */
export function registerCustomers(app: Hono<ConsoleEnv>): void {
  app.get('/customers', async (c) => {
    const { engine, session, csrf } = c.var;
    const q = (c.req.query('q') ?? '').trim().slice(0, 256);
    const found = q ? await engine.cdd.customers.find(session.businessId, q) : undefined;
    if (found) return c.redirect(`/console/customers/${encodeURIComponent(found.doc.uniqueId)}`, 303);
    return c.html(
      <Page title="Customers" session={session} csrf={csrf} current="/console/customers">
        <form method="get" action="/console/customers" class="inline" aria-label="Find a customer">
          <div>
            <label for="c-q">Customer id or account number</label>
            <input id="c-q" name="q" type="search" value={q} required size={40} />
          </div>
          <button type="submit">Find</button>
        </form>
        {q ? <Notice kind="error">No customer has the id or account number {q}.</Notice> : null}
      </Page>,
    );
  });

  app.get('/customers/:id', (c) => customerPage(c, c.req.param('id')));

  app.post('/customers/:id/review', async (c) => {
    const body = await c.req.parseBody();
    const text = (k: string) => (typeof body[k] === 'string' ? (body[k] as string).trim() : '');
    const type = text('type');
    const status = text('status');
    const index = Number(text('index'));
    const note = text('note');
    if (!(SCREENED as readonly string[]).includes(type)) throw new ValidationError(`type must be one of: ${SCREENED.join(', ')}`, 'type');
    if (status !== 'found' && status !== 'not found') throw new ValidationError('status must be found or not found', 'status');
    if (!Number.isInteger(index) || index < 0) throw new ValidationError('index must be a whole number of 0 or more', 'index');
    if (!note) throw new ValidationError('note is required: say why the match is or is not the customer', 'note');
    const { engine, session } = c.var;
    const customer = await engine.cdd.customers.get(session.businessId, c.req.param('id'));
    const request = await engine.cdd.requests.get(session.businessId, text('requestId'));
    // The form names the customer in its URL: a request of another customer is not reviewed from here.
    if (request.customer_unique_id !== customer.doc.uniqueId) throw new NotFoundError('CDD request not found');
    const uniqueId = customer.doc.uniqueId;
    const gated = await engine.approvals.gate(
      session.businessId,
      personOf(c),
      {
        action: 'screening.review',
        subject: { kind: 'customer', id: uniqueId },
        summary: `Mark ${type} match ${index + 1} of ${uniqueId} as ${status === 'found' ? 'the customer (confirmed)' : 'not the customer (dismissed)'}`,
        payload: { requestId: request.request_id, type, status, index, note },
        reason: note,
      },
      () =>
        engine.cdd.requests.review(
          { businessId: session.businessId, userId: session.user._id, requestId: c.get('requestId' as never) },
          request.request_id,
          { type: type as Screened, status, index, note },
        ),
    );
    return afterGate(c, gated, `/console/customers/${encodeURIComponent(uniqueId)}`);
  });
}
