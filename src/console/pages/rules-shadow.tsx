import type { Context, Hono } from 'hono';
import { ForbiddenError, NotFoundError, ValidationError } from '../../errors.js';
import { publishRequest, type ShadowReport } from '../../monitoring/shadow/index.js';
import { afterGate, personOf } from '../approvals.js';
import { Badge, BLUE, GREY, num, Pager, pastLastPage, PostButton, Table } from '../components.js';
import type { ConsoleEnv } from '../env.js';
import { actorOf, formText } from '../forms.js';
import { Csrf, fmtDate, Page } from '../layout.js';
import { hoursBetween, LinePlot } from '../svg-plot.js';

const LIMIT = 20;

const pageNumber = (value: string | undefined): number => {
  if (value === undefined || value === '') return 1;
  const page = Number(value);
  if (!Number.isInteger(page) || page < 1) throw new ValidationError('page must be a whole number of at least 1', 'page');
  return page;
};

/** All rules' hits per hour of the window, in the deciding ruleset and in the candidate. */
function hitsPerHour(r: ShadowReport) {
  const hours = r.hours.length === 0 ? [] : hoursBetween(r.hours[0]!.hour, r.hours[r.hours.length - 1]!.hour);
  const byHour = new Map(r.hours.map((h) => [h.hour, Object.values(h.hits)]));
  const sum = (hour: string, side: 'deciding' | 'candidate') => (byHour.get(hour) ?? []).reduce((n, h) => n + h[side], 0);
  return {
    labels: hours.map((h) => `${h.slice(5, 10)} ${h.slice(11)}h`),
    deciding: hours.map((h) => sum(h, 'deciding')),
    candidate: hours.map((h) => sum(h, 'candidate')),
  };
}

/** The business's running shadow ruleset (else its last): what it would change, its hits per hour, stop and publish. */
async function shadowPage(c: Context<ConsoleEnv>) {
  const { engine, session, csrf } = c.var;
  const pair = c.req.query('pair') || undefined;
  const page = pageNumber(c.req.query('page'));
  let report: ShadowReport;
  try {
    report = await engine.shadows.report(session.businessId, { pair, page, limit: LIMIT });
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    return c.html(
      <Page title="Shadow ruleset" session={session} csrf={csrf} current="/console/rules">
        <p>
          No shadow ruleset ran for this business. Deploy a candidate in shadow from the <a href="/console/rules">rules page</a>.
        </p>
      </Page>,
    );
  }
  const past = pastLastPage(c, page, report.changes.total, LIMIT);
  if (past) return past;
  const s = report.shadow;
  const running = s.status === 'running';
  const plot = hitsPerHour(report);
  const rules = Object.entries(report.ruleHits).sort(([a], [b]) => a.localeCompare(b));
  const query = new URLSearchParams(pair ? { pair } : {});
  return c.html(
    <Page title="Shadow ruleset" session={session} csrf={csrf} current="/console/rules">
      <p>
        <a href="/console/rules">Rules</a> › shadow <code>{s.shadowId}</code>
      </p>
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <Badge value={s.status} />
          {s.stopReason ? ` ${s.stopReason}, ${fmtDate(s.stoppedAt)}` : ` until ${fmtDate(s.until)} or ${s.maxDecisions} decisions`}
        </dd>
        <dt>Candidate</dt>
        <dd>
          <code>{s.candidateVersion}</code>, {Object.keys(s.files).length} files, started {fmtDate(s.startedAt)}
        </dd>
        <dt>Window covered</dt>
        <dd>{report.window.from ? `${fmtDate(report.window.from)} to ${fmtDate(report.window.to)} (UTC)` : 'no decision evaluated yet'}</dd>
        <dt>Decisions</dt>
        <dd>
          {report.decisions} evaluated, <strong>{report.changed}</strong> would change
          {report.unreproducible > 0 ? `, ${report.unreproducible} not reproducible` : ''}
        </dd>
      </dl>
      {running && session.role !== 'auditor' ? (
        <div class="actions">
          <PostButton csrf={csrf} action="/console/rules/shadow/stop" text="Stop the shadow" label="Stop the shadow" kind="secondary" />
        </div>
      ) : null}
      {running && session.role === 'admin' ? (
        <form method="post" action="/console/rules/shadow/publish" class="stacked">
          <Csrf token={csrf} />
          <div>
            <label for="p-reason">Why publish (for the approver)</label>
            <input id="p-reason" name="reason" maxlength={2000} />
          </div>
          <div class="actions">
            <button type="submit">Publish the candidate</button>
          </div>
          <p class="muted">
            Publishing makes the candidate the deciding ruleset for every business this server serves; under the four-eyes policy it waits
            for a second administrator.
          </p>
        </form>
      ) : null}

      <div class="grid">
        <div class="card">
          {plot.labels.length === 0 ? (
            <p class="muted">No hour to plot yet.</p>
          ) : (
            <LinePlot
              label="Hits per hour, all rules: deciding against candidate"
              labels={plot.labels}
              series={[
                { label: 'deciding', color: GREY, data: plot.deciding },
                { label: 'candidate', color: BLUE, data: plot.candidate },
              ]}
            />
          )}
        </div>
        <Table caption="Decisions it would change" columns={['Deciding → candidate', num('Decisions')]}>
          {Object.entries(report.transitions)
            .sort((a, b) => b[1] - a[1])
            .map(([p, n]) => (
              <tr>
                <td>
                  <a href={`/console/rules/shadow?pair=${encodeURIComponent(p)}`}>{p}</a>
                </td>
                <td class="num">{n}</td>
              </tr>
            ))}
        </Table>
      </div>
      <Table caption="Hits per rule" columns={['Rule', num('Deciding'), num('Candidate')]}>
        {rules.map(([id, h]) => (
          <tr>
            <td>{id}</td>
            <td class="num">{h.deciding}</td>
            <td class="num">{h.candidate}</td>
          </tr>
        ))}
      </Table>
      <Table
        caption={pair ? `Changed decisions, ${pair} only (all: /console/rules/shadow)` : 'Changed decisions'}
        columns={['Decided', 'Reference', 'Customer', 'Change', 'Deciding rules', 'Candidate rules', num('Candidate score')]}
      >
        {report.changes.items.map((d) => (
          <tr>
            <td>{fmtDate(d.decidedAt)}</td>
            <td>
              <a href={`/console/transactions?q=${encodeURIComponent(d.reference)}`}>{d.reference}</a>
            </td>
            <td>{d.customer ?? '—'}</td>
            <td>{d.pair}</td>
            <td>{d.decidingFired.join(', ') || '—'}</td>
            <td>{d.candidateFired.join(', ') || '—'}</td>
            <td class="num">{d.candidateRiskScore}</td>
          </tr>
        ))}
      </Table>
      <Pager base="/console/rules/shadow" query={query} page={page} limit={LIMIT} total={report.changes.total} />
      <details>
        <summary>The candidate's files</summary>
        {Object.entries(s.files).map(([file, text]) => (
          <>
            <h3>{file}</h3>
            <pre class="code">{text}</pre>
          </>
        ))}
      </details>
    </Page>,
  );
}

export function registerRulesShadow(app: Hono<ConsoleEnv>): void {
  app.get('/rules/shadow', (c) => shadowPage(c));

  app.post('/rules/shadow/stop', async (c) => {
    await c.var.engine.shadows.stop(actorOf(c));
    return c.redirect('/console/rules/shadow', 303);
  });

  /** An administrator's: at once, or as a request a second administrator approves when the policy says so. */
  app.post('/rules/shadow/publish', async (c) => {
    const { engine, session } = c.var;
    if (session.role !== 'admin') throw new ForbiddenError('Only an admin publishes rules: they decide for every business');
    const reason = await formText(c, 'reason', { required: false, max: 2000 });
    const run = await engine.shadows.report(session.businessId);
    if (run.shadow.status !== 'running') throw new NotFoundError('No shadow ruleset runs for this business');
    const gated = await engine.approvals.gate(session.businessId, personOf(c), publishRequest(run, reason), () =>
      engine.shadows.publish(actorOf(c), run.shadow.shadowId),
    );
    return afterGate(c, gated, '/console/rules/shadow');
  });
}
