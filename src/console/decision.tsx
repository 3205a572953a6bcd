import type { FC } from 'hono/jsx';
import { partiesOf, type DecisionSummary, type StoredTransaction } from '../monitoring/index.js';
import { Badge, num, Table } from './components.js';
import { fmtDate } from './layout.js';

/** Why a transaction was decided as it was: score, action, reason, ruleset version, and every fired rule's tests. */
export const DecisionExplanation: FC<{ tx: StoredTransaction }> = ({ tx }) => (
  <section aria-labelledby="decision-h">
    <h2 id="decision-h">Decision</h2>
    <dl class="facts">
      <dt>Reference</dt>
      <dd>{tx.reference}</dd>
      <dt>Transaction id</dt>
      <dd>
        <a href={`/console/transactions?q=${encodeURIComponent(tx.transactionId)}`}>{tx.transactionId}</a>
      </dd>
      <dt>Action</dt>
      <dd>
        <Badge value={tx.action.result} /> (code {tx.action.code})
      </dd>
      <dt>Risk score</dt>
      <dd>{tx.riskScore}</dd>
      <dt>Reason</dt>
      <dd>
        {tx.reason.code}: {tx.reason.message} <span class="muted">({tx.reason.severity})</span>
      </dd>
      <dt>Ruleset version</dt>
      <dd>
        <code>{tx.rulesetVersion}</code>
      </dd>
      <dt>Decided at</dt>
      <dd>{fmtDate(tx.decidedAt)}</dd>
      <dt>Parties</dt>
      <dd>
        {partiesOf(tx.request).map((p, i) => (
          <>
            {i > 0 ? ', ' : ''}
            {p.kind}{' '}
            <a href={`/console/transactions?${p.kind}=${encodeURIComponent(p.value)}`} aria-label={`Decisions of ${p.kind} ${p.value}`}>
              {p.value}
            </a>
          </>
        ))}
      </dd>
    </dl>
    <Table
      caption={<>Rules that fired ({tx.ruleResult?.length ?? 0})</>}
      columns={['Rule', num('Score'), 'Reason', 'Tests (threshold) and observed values']}
    >
      {(tx.ruleResult ?? []).map((r) => (
        <tr>
          <td>
            <strong>{r.id}</strong>
            <br />
            {r.title}
            {r.forced ? (
              <>
                <br />
                <span class="muted">forces {r.forced}</span>
              </>
            ) : null}
          </td>
          <td class="num">{r.score}</td>
          <td>
            {r.reason.code}: {r.reason.message}
          </td>
          <td>
            <ul>
              {r.observed.map((o) => (
                <li>
                  <code>{o.test}</code> — {o.holds === null ? 'missing value' : o.holds ? 'holds' : 'does not hold'}
                  {Object.keys(o.values).length > 0 ? (
                    <>
                      {' '}
                      (observed{' '}
                      {Object.entries(o.values)
                        .map(([k, v]) => `${k} = ${v === null ? 'missing' : String(v)}`)
                        .join(', ')}
                      )
                    </>
                  ) : null}
                </li>
              ))}
            </ul>
          </td>
        </tr>
      ))}
    </Table>
  </section>
);

/** Decisions as a list: each links to its explanation and its case. */
export const DecisionList: FC<{ caption: string; decisions: readonly DecisionSummary[] }> = ({ caption, decisions }) => (
  <Table caption={`${caption} (${decisions.length})`} columns={['Decided', 'Reference', 'Action', num('Score'), 'Rules fired', 'Case']}>
    {decisions.map((d) => (
      <tr>
        <td>{fmtDate(d.decidedAt)}</td>
        <td>
          <a href={`/console/transactions?q=${encodeURIComponent(d.transactionId)}`}>{d.reference}</a>
        </td>
        <td>
          <Badge value={d.action} />
        </td>
        <td class="num">{d.riskScore}</td>
        <td>{d.fired.join(', ') || '—'}</td>
        <td>{d.caseId ? <a href={`/console/cases/${d.caseId}`}>case</a> : '—'}</td>
      </tr>
    ))}
  </Table>
);
