import type { Hono } from 'hono';
import { NotFoundError } from '../../errors.js';
import type { StoredTransaction } from '../../monitoring/index.js';
import { DecisionExplanation } from '../decision.js';
import type { ConsoleEnv } from '../env.js';
import { Notice, Page } from '../layout.js';

/** A decided transaction found by its reference or its transactionId, with the full explanation of its decision. */
export function registerTransactions(app: Hono<ConsoleEnv>): void {
  app.get('/transactions', async (c) => {
    const { engine, session, csrf } = c.var;
    const q = (c.req.query('q') ?? '').trim().slice(0, 256);
    let tx: StoredTransaction | undefined;
    if (q) {
      tx = await engine.monitoring.transactionByReference(session.businessId, q);
      if (!tx) {
        try {
          tx = await engine.monitoring.getTransaction(session.businessId, q);
        } catch (error) {
          if (!(error instanceof NotFoundError)) throw error;
        }
      }
    }
    return c.html(
      <Page title="Transactions" session={session} csrf={csrf} current="/console/transactions">
        <form method="get" action="/console/transactions" class="inline" aria-label="Find a transaction">
          <div>
            <label for="t-q">Reference or transactionId</label>
            <input id="t-q" name="q" type="search" value={q} required size={40} />
          </div>
          <button type="submit">Find</button>
        </form>
        {q && !tx ? <Notice kind="error">No decided transaction has the reference or id {q}.</Notice> : null}
        {tx ? (
          <>
            {tx.caseId ? (
              <p>
                Case: <a href={`/console/cases/${tx.caseId}`}>open the case of this transaction</a>
              </p>
            ) : (
              <p class="muted">No case was opened for this transaction.</p>
            )}
            <DecisionExplanation tx={tx} />
          </>
        ) : null}
      </Page>,
    );
  });
}
