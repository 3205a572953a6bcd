import { basename } from 'node:path';
import type { Context, Hono } from 'hono';
import { ValidationError } from '../../errors.js';
import { candidateSources } from '../../monitoring/index.js';
import type { BacktestReport, RuleDiagnostic } from '../../rules/index.js';
import { BarChart, BLUE, GREY, num, Table } from '../components.js';
import type { ConsoleEnv } from '../env.js';
import { actorOf } from '../forms.js';
import { Csrf, Notice, Page } from '../layout.js';

const MAX_CANDIDATE_CHARS = 1_000_000;

/** An optional number field of the form: absent when blank, refused by name when not a number. */
const numberField = (value: unknown, field: string): number | undefined => {
  const text = typeof value === 'string' ? value.trim() : '';
  if (!text) return undefined;
  const n = Number(text);
  if (!Number.isFinite(n)) throw new ValidationError(`${field} must be a number`, field);
  return n;
};

/** The ruleset in force, and a candidate file: checked at file:line:col, then backtested against the business's decisions. */
async function rulesPage(
  c: Context<ConsoleEnv>,
  result?: { name: string; text: string; errors?: readonly RuleDiagnostic[]; report?: BacktestReport },
) {
  const { engine, session, csrf } = c.var;
  const inForce = engine.monitoring.rulesInForce();
  const report = result?.report;
  const hits = report ? Object.entries(report.ruleHits).sort(([a], [b]) => a.localeCompare(b)) : [];
  return c.html(
    <Page title="Rules" session={session} csrf={csrf} current="/console/rules">
      <p>
        <a href="/console/rules/performance">Rule performance</a>: each rule's hits, alerts and how its cases were closed.{' '}
        <a href="/console/rules/shadow">Shadow ruleset</a>: a candidate evaluated on live decisions, what it would change.
      </p>
      {result?.errors && result.errors.length > 0 ? (
        <section aria-labelledby="errors-h">
          <h2 id="errors-h">The candidate does not compile</h2>
          <ul class="errors" role="alert">
            {result.errors.map((e) => (
              <li>
                {e.file}:{e.line}:{e.col}: {e.message}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {result?.errors && result.errors.length === 0 ? <Notice kind="info">The candidate compiles with the rules in force.</Notice> : null}
      {report ? (
        <section aria-labelledby="backtest-h">
          <h2 id="backtest-h">Backtest of {result?.name}</h2>
          <p>
            {report.decisions} decisions replayed; <strong>{report.changed}</strong> would change action. Candidate version{' '}
            <code>{report.candidateVersion}</code>.
          </p>
          <div class="grid">
            <BarChart
              label="Hits per rule, current against candidate"
              labels={hits.map(([id]) => id)}
              series={[
                { label: 'current', data: hits.map(([, h]) => h.current), color: GREY },
                { label: 'candidate', data: hits.map(([, h]) => h.candidate), color: BLUE },
              ]}
              sideways
            />
            <Table caption="Changed actions" columns={['Current → candidate', num('Decisions')]}>
              {Object.entries(report.transitions).map(([t, n]) => (
                <tr>
                  <td>{t}</td>
                  <td class="num">{n}</td>
                </tr>
              ))}
            </Table>
          </div>
          <Table caption="Hits per rule" columns={['Rule', num('Current'), num('Candidate')]}>
            {hits.map(([id, h]) => (
              <tr>
                <td>{id}</td>
                <td class="num">{h.current}</td>
                <td class="num">{h.candidate}</td>
              </tr>
            ))}
          </Table>
          <Table
            caption="Sample transactions whose action changes"
            columns={['Change', 'Reference', 'Current rules', 'Candidate rules', num('Candidate score')]}
          >
            {Object.entries(report.samples).flatMap(([t, list]) =>
              list.map((s) => (
                <tr>
                  <td>{t}</td>
                  <td>{s.reference ? <a href={`/console/transactions?q=${encodeURIComponent(s.reference)}`}>{s.reference}</a> : '—'}</td>
                  <td>{s.currentFired.join(', ') || '—'}</td>
                  <td>{s.candidateFired.join(', ') || '—'}</td>
                  <td class="num">{s.candidateRiskScore}</td>
                </tr>
              )),
            )}
          </Table>
        </section>
      ) : null}

      {session.role === 'auditor' ? null : (
        <section aria-labelledby="candidate-h">
          <h2 id="candidate-h">Candidate</h2>
          <p class="muted">
            The file replaces the one of the same name in force (or joins them); check it, backtest it against this business's decisions,
            then deploy it in shadow: it is evaluated on every live decision beside the rules in force, and never acts.
          </p>
          <form method="post" action="/console/rules/candidate" enctype="multipart/form-data" class="stacked">
            <Csrf token={csrf} />
            <div>
              <label for="r-name">File name</label>
              <input id="r-name" name="name" value={result?.name ?? 'candidate.rules'} required pattern="[\w.\-]+\.rules" />
            </div>
            <div>
              <label for="r-text">Rules (paste)</label>
              <textarea id="r-text" name="text" class="code">
                {result?.text ?? ''}
              </textarea>
            </div>
            <div>
              <label for="r-file">…or upload a .rules file</label>
              <input id="r-file" name="file" type="file" accept=".rules,text/plain" />
            </div>
            <div>
              <label for="r-hours">Shadow stops after (hours)</label>
              <input id="r-hours" name="hours" type="number" min="1" max="336" value="24" />
            </div>
            <div>
              <label for="r-max">…or after (decisions, optional)</label>
              <input id="r-max" name="maxDecisions" type="number" min="1" />
            </div>
            <div class="actions">
              <button type="submit" name="action" value="check" class="secondary">
                Check
              </button>
              <button type="submit" name="action" value="backtest">
                Run backtest
              </button>
              <button type="submit" name="action" value="shadow">
                Deploy in shadow
              </button>
            </div>
          </form>
        </section>
      )}

      <h2>In force</h2>
      <p>
        Version <code>{inForce.version}</code>, {inForce.rules.length} rules in {inForce.files.length} files:{' '}
        {inForce.files.map((f) => basename(f)).join(', ')}.
      </p>
      <Table caption="Rules in force" columns={['Rule', 'Title', 'File', num('Score'), 'Reason']}>
        {inForce.rules.map((r) => (
          <tr>
            <td>{r.id}</td>
            <td>{r.title}</td>
            <td>
              {basename(r.file)}:{r.line}
            </td>
            <td class="num">{r.score.toString()}</td>
            <td>
              {r.reason.code} ({r.reason.severity})
            </td>
          </tr>
        ))}
      </Table>
    </Page>,
  );
}

export function registerRules(app: Hono<ConsoleEnv>): void {
  app.get('/rules', (c) => rulesPage(c));

  app.post('/rules/candidate', async (c) => {
    const body = await c.req.parseBody();
    const upload = body.file instanceof File && body.file.size > 0 ? body.file : undefined;
    const name = upload ? basename(upload.name) : typeof body.name === 'string' ? body.name.trim() : '';
    // A browser sends a textarea's lines ended by CRLF: pasted rules are kept with the files' own LF.
    const text = upload ? await upload.text() : typeof body.text === 'string' ? body.text.replace(/\r\n/g, '\n') : '';
    if (!/^[\w.-]+\.rules$/.test(name)) throw new ValidationError('name must be NAME.rules', 'name');
    if (!text.trim()) throw new ValidationError('text is required: paste the rules or upload a file', 'text');
    if (text.length > MAX_CANDIDATE_CHARS) throw new ValidationError(`text is longer than ${MAX_CANDIDATE_CHARS} characters`, 'text');
    const current = await c.var.engine.monitoring.ruleSources();
    const files: Record<string, string> = Object.create(null);
    for (const f of current.files) files[basename(f.path)] = f.text;
    for (const l of current.lists) files[`lists/${basename(l.path)}`] = l.text;
    files[name] = text;
    const sources = candidateSources(files);
    const errors = c.var.engine.monitoring.checkCandidate(sources);
    if (errors.length > 0 || (body.action !== 'backtest' && body.action !== 'shadow')) return rulesPage(c, { name, text, errors });
    if (body.action === 'shadow') {
      await c.var.engine.shadows.deploy(actorOf(c), {
        files,
        hours: numberField(body.hours, 'hours'),
        maxDecisions: numberField(body.maxDecisions, 'maxDecisions'),
      });
      return c.redirect('/console/rules/shadow', 303);
    }
    const report = await c.var.engine.monitoring.backtest(c.var.session.businessId, sources);
    return rulesPage(c, { name, text, report });
  });
}
