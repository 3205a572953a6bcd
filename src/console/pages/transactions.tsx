import type { Context, Hono } from 'hono';
import { NotFoundError } from '../../errors.js';
import { PARTY_KINDS, type DecisionSummary, type Party, type StoredTransaction } from '../../monitoring/index.js';
import { Select } from '../components.js';
import { DecisionExplanation, DecisionList } from '../decision.js';
import type { ConsoleEnv } from '../env.js';
import { Notice, Page } from '../layout.js';

const PARTY_LABEL = { user: 'User (uniqueId)', account: 'Account (sender or receiver)', device: 'Device' } as const;

async function byReferenceOrId(c: Context<ConsoleEnv>, q: string): Promise<StoredTransaction | undefined> {
  const { engine, session } = c.var;
  const tx = await engine.monitoring.transactionByReference(session.businessId, q);
  if (tx) return tx;
  try {
    return await engine.monitoring.getTransaction(session.businessId, q);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    return undefined;
  }
}

/** The party asked for: `?user=`, `?account=` or `?device=` (links), or the search form's kind and value. */
function partyOf(c: Context<ConsoleEnv>): Party | undefined {
  for (const kind of PARTY_KINDS) {
    const value = (c.req.query(kind) ?? '').trim().slice(0, 256);
    if (value) return { kind, value };
  }
  const kind = PARTY_KINDS.find((k) => k === c.req.query('kind'));
  const value = (c.req.query('value') ?? '').trim().slice(0, 256);
  return kind && value ? { kind, value } : undefined;
}

/**
 * A decided transaction found by its reference or its transactionId, with the full explanation of its decision;
 * or a user's, account's or device's decisions.
 */
export function registerTransactions(app: Hono<ConsoleEnv>): void {
  app.get('/transactions', async (c) => {
    const { engine, session, csrf } = c.var;
    const q = (c.req.query('q') ?? '').trim().slice(0, 256);
    const party = partyOf(c);
    const tx = q ? await byReferenceOrId(c, q) : undefined;
    const decisions: DecisionSummary[] | undefined = party ? await engine.monitoring.decisionsOf(session.businessId, party) : undefined;
    return c.html(
      <Page title="Transactions" session={session} csrf={csrf} current="/console/transactions">
        <form method="get" action="/console/transactions" class="inline" aria-label="Find a transaction">
          <div>
            <label for="t-q">Reference or transactionId</label>
            <input id="t-q" name="q" type="search" value={q} required size={40} />
          </div>
          <button type="submit">Find</button>
        </form>
        <form method="get" action="/console/transactions" class="inline" aria-label="Decisions of a user, account or device">
          <Select
            id="t-kind"
            label="Decisions of"
            name="kind"
            value={party?.kind ?? 'user'}
            options={PARTY_KINDS.map((k) => [k, PARTY_LABEL[k]] as const)}
          />
          <div>
            <label for="t-value">Id or number</label>
            <input id="t-value" name="value" type="search" value={party?.value ?? ''} required size={30} />
          </div>
          <button type="submit">List decisions</button>
        </form>
        {q && !tx ? <Notice kind="error">No decided transaction has the reference or id {q}.</Notice> : null}
        {party && decisions ? <DecisionList caption={`Decisions of ${party.kind} ${party.value}`} decisions={decisions} /> : null}
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
