import type { Hono } from 'hono';
import { CASE_PRIORITIES, CASE_STATUSES } from '../../cases/index.js';
import { BarChart, BLUE, GREY, num, Table } from '../components.js';
import type { ConsoleEnv } from '../env.js';
import { Notice, Page, fmtDate } from '../layout.js';

const TOP_RULES = 15;

/** The home page: open work by status and priority, the last day's decisions and rule hits, and the ruleset in force. */
export function registerDashboard(app: Hono<ConsoleEnv>): void {
  app.get('/dashboard', async (c) => {
    const { engine, session, csrf } = c.var;
    const businessId = session.businessId;
    const [byPriority, stats] = await Promise.all([
      Promise.all(CASE_PRIORITIES.map((priority) => engine.cases.read.countsByStatus(businessId, { priority }))),
      engine.monitoring.decisionStats(businessId, 24),
    ]);
    const statuses = CASE_STATUSES.filter((s) => s !== 'closed');
    const actions = Object.entries(stats.byAction).sort(([a], [b]) => a.localeCompare(b));
    const rules = Object.entries(stats.ruleHits)
      .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
      .slice(0, TOP_RULES);
    const rulesStatus = engine.monitoring.rulesStatus;
    const queue = (priority: string, status: string) => `/console/queue?${new URLSearchParams({ priority, status })}`;
    return c.html(
      <Page title="Dashboard" session={session} csrf={csrf} current="/console/dashboard">
        <p>
          <a href="/console/approvals">
            {c.var.pendingApprovals === 1 ? '1 request waits' : `${c.var.pendingApprovals} requests wait`} for a second person
          </a>
        </p>
        <Table caption="Cases and alerts not closed, by priority and status" columns={['Priority', ...statuses.map(num), num('All')]}>
          {CASE_PRIORITIES.map((priority, i) => {
            const counts = byPriority[i]!;
            return (
              <tr>
                <th scope="row">{priority}</th>
                {statuses.map((status) => (
                  <td class="num">
                    <a href={queue(priority, status)} aria-label={`${counts.get(status) ?? 0} ${priority} ${status}`}>
                      {counts.get(status) ?? 0}
                    </a>
                  </td>
                ))}
                <td class="num">{statuses.reduce((sum, s) => sum + (counts.get(s) ?? 0), 0)}</td>
              </tr>
            );
          })}
        </Table>
        <h2>The last 24 hours</h2>
        <p>
          {stats.decisions} decision{stats.decisions === 1 ? '' : 's'} since {fmtDate(stats.since)}.
        </p>
        <div class="cards">
          <div>
            <BarChart
              label="Decisions per action over the last 24 hours"
              labels={actions.map(([a]) => a)}
              series={[{ label: 'decisions', data: actions.map(([, n]) => n), color: BLUE }]}
            />
            <Table caption="Decisions per action" columns={['Action', num('Decisions')]}>
              {actions.map(([action, n]) => (
                <tr>
                  <td>{action}</td>
                  <td class="num">{n}</td>
                </tr>
              ))}
            </Table>
          </div>
          <div>
            <BarChart
              label={`Hits of the ${TOP_RULES} most fired rules over the last 24 hours`}
              labels={rules.map(([id]) => id)}
              series={[{ label: 'hits', data: rules.map(([, n]) => n), color: GREY }]}
              sideways
            />
            <Table caption="Rule hits" columns={['Rule', num('Decisions it fired in')]}>
              {rules.map(([id, n]) => (
                <tr>
                  <td>{id}</td>
                  <td class="num">{n}</td>
                </tr>
              ))}
            </Table>
          </div>
        </div>
        <h2>Ruleset</h2>
        <dl class="facts">
          <dt>Version in force</dt>
          <dd>
            <code>{rulesStatus.version}</code>
          </dd>
          <dt>Loaded</dt>
          <dd>{fmtDate(rulesStatus.loadedAt)}</dd>
          <dt>Last reload error</dt>
          <dd>{rulesStatus.lastReloadError ? fmtDate(rulesStatus.lastReloadError.at) : 'none'}</dd>
        </dl>
        {rulesStatus.lastReloadError ? (
          <Notice kind="error">
            A change to the rules was refused and the version above keeps deciding: {rulesStatus.lastReloadError.errors.join('; ')}
          </Notice>
        ) : null}
      </Page>,
    );
  });
}
