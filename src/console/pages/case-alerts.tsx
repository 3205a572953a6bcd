import type { Context } from 'hono';
import type { FC } from 'hono/jsx';
import type { Case, CaseAlertEntry } from '../../cases/index.js';
import type { TransactionFacts } from '../../monitoring/index.js';
import { num, Pager, Table } from '../components.js';
import type { ConsoleEnv } from '../env.js';
import { FactCells } from '../facts.js';

/** Alerts a case page shows at once; a case with more pages them. */
export const ALERTS_PER_PAGE = 50;

export interface AlertPage {
  alerts: CaseAlertEntry[];
  total: number;
  page: number;
  facts: Map<string, TransactionFacts>;
}

/** The page of the case's alerts the query asks for (`alerts=N`), with each alert's facts, in two queries. */
export async function alertPageOf(c: Context<ConsoleEnv>, k: Case): Promise<AlertPage> {
  const { engine, session } = c.var;
  const asked = Number.parseInt(c.req.query('alerts') ?? '1', 10) || 1;
  const last = Math.max(1, Math.ceil(k.counts.alerts / ALERTS_PER_PAGE));
  // Past the last page shows the last one, never an empty table.
  const page = Math.max(1, Math.min(last, asked));
  const { alerts, total } = await engine.cases.read.alerts(session.businessId, k._id, { page, limit: ALERTS_PER_PAGE });
  const facts = await engine.monitoring.transactionFacts(
    session.businessId,
    alerts.map((a) => a.transactionId),
  );
  return { alerts, total, page, facts };
}

/** The case's alerts with the facts of each: money, time in the business's zone, counterparty, list hits. */
export const CaseAlerts: FC<{ caseId: string; list: AlertPage; timeZone: string }> = ({ caseId, list, timeZone }) =>
  list.total === 0 ? null : (
    <section aria-labelledby="alerts-h">
      <h2 id="alerts-h">Alerts ({list.total})</h2>
      <Table
        caption={<span class="muted">Decisions that were not approved, in the order they joined; the latest is explained below</span>}
        columns={['Reference', num('Amount'), `When (${timeZone})`, 'Counterparty', 'Action', num('Score'), 'Rules and list hits']}
      >
        {list.alerts.map((a) => {
          const facts = list.facts.get(a.transactionId);
          return (
            <tr>
              <td>
                <a href={`/console/transactions?q=${encodeURIComponent(a.reference)}`}>{a.reference}</a>
              </td>
              <FactCells facts={facts} timeZone={timeZone} />
              <td>{a.action}</td>
              <td class="num">{a.score}</td>
              <td>{[...a.rules, ...(facts?.listHits ?? [])].join(', ') || '—'}</td>
            </tr>
          );
        })}
      </Table>
      {list.total > ALERTS_PER_PAGE ? (
        <Pager
          base={`/console/cases/${caseId}`}
          query={new URLSearchParams()}
          page={list.page}
          limit={ALERTS_PER_PAGE}
          total={list.total}
          param="alerts"
        />
      ) : null}
    </section>
  );
