import type { Hono } from 'hono';
import type { RuleFigures } from '../../monitoring/rule-performance/index.js';
import { BarChart, BLUE, Chart, GREY, num, Table } from '../components.js';
import type { ConsoleEnv } from '../env.js';
import { Page } from '../layout.js';

const RED = '#b42318';
/** Line colours of the rules plotted per day, most hits first. */
const PALETTE = ['#0a58ca', '#b42318', '#2f855a', '#b7791f', '#6b46c1', '#8c959f'];
const PLOTTED = 6;

const falsePositives = (r: RuleFigures) => r.dispositions['false positive'];

/** Each rule's hits, alerts and the outcome of the cases it raised, over a period of days. */
export function registerRulePerformance(app: Hono<ConsoleEnv>): void {
  app.get('/rules/performance', async (c) => {
    const { engine, session, csrf } = c.var;
    const report = await engine.rulePerformance.report(session.businessId, {
      from: c.req.query('from') || undefined,
      to: c.req.query('to') || undefined,
    });
    const byFalsePositives = [...report.rules].sort((a, b) => falsePositives(b) - falsePositives(a) || b.hits - a.hits);
    const days = [...new Set(report.days.map((d) => d.day))];
    const plotted = report.rules.slice(0, PLOTTED);
    const withCases = report.rules.filter((r) => r.closed > 0);
    return c.html(
      <Page title="Rule performance" session={session} csrf={csrf} current="/console/rules">
        <form method="get" action="/console/rules/performance" class="inline">
          <div>
            <label for="p-from">From</label>
            <input id="p-from" name="from" type="date" value={report.from} />
          </div>
          <div>
            <label for="p-to">To</label>
            <input id="p-to" name="to" type="date" value={report.to} />
          </div>
          <button type="submit">Show</button>
        </form>
        <p class="muted">
          UTC days {report.from} to {report.to}. A case with alerts from several rules counts for each of them; true positives are cases
          closed as reported or customer exited.
        </p>
        {report.rules.length === 0 ? (
          <p>No rule fired in this period.</p>
        ) : (
          <div class="grid">
            <div class="card">
              <Chart
                label="Hits per day of the rules that fired most"
                config={{
                  type: 'line',
                  data: {
                    labels: days,
                    datasets: plotted.map((r, i) => ({
                      label: r.ruleId,
                      data: days.map((day) => report.days.find((d) => d.day === day && d.ruleId === r.ruleId)?.hits ?? 0),
                      borderColor: PALETTE[i],
                      backgroundColor: PALETTE[i],
                    })),
                  },
                  options: { animation: false, responsive: true, maintainAspectRatio: false },
                }}
              />
            </div>
            <BarChart
              label="Precision per rule (true positives of closed cases)"
              labels={withCases.map((r) => r.ruleId)}
              series={[{ label: 'precision', data: withCases.map((r) => Number(r.precision)), color: BLUE }]}
              sideways
            />
            <BarChart
              label="Cases closed as false positive, most first"
              labels={byFalsePositives.map((r) => r.ruleId)}
              series={[
                { label: 'false positive', data: byFalsePositives.map(falsePositives), color: RED },
                { label: 'true positive', data: byFalsePositives.map((r) => r.truePositives), color: GREY },
              ]}
              sideways
            />
          </div>
        )}
        <Table
          caption="Rules, most false positives first"
          wide
          columns={[
            'Rule',
            num('Hits'),
            num('Alerts'),
            num('Cases'),
            num('Closed'),
            num('False positive'),
            num('Reported'),
            num('Customer exited'),
            num('No further action'),
            num('Precision'),
            num('STRs'),
            num('STR share'),
            num('Median hours to close'),
          ]}
        >
          {byFalsePositives.map((r) => (
            <tr>
              <td>{r.ruleId}</td>
              <td class="num">{r.hits}</td>
              <td class="num">{r.alerts}</td>
              <td class="num">{r.cases}</td>
              <td class="num">{r.closed}</td>
              <td class="num">{falsePositives(r)}</td>
              <td class="num">{r.dispositions.reported}</td>
              <td class="num">{r.dispositions['customer exited']}</td>
              <td class="num">{r.dispositions['no further action']}</td>
              <td class="num">{r.precision ?? '—'}</td>
              <td class="num">{r.strs}</td>
              <td class="num">{r.strShare ?? '—'}</td>
              <td class="num">{r.medianHoursToClose ?? '—'}</td>
            </tr>
          ))}
        </Table>
      </Page>,
    );
  });
}
