import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import { NotFoundError, ValidationError } from '../errors.js';
import type { EventStore } from '../store/index.js';
import { type ReportActor, actorName } from './actor.js';
import { type DecisionDaysTables, decisionsBetween } from './decision-days.js';
import { firedRulesInWords, reportDocument } from './document.js';
import type { Draft, ReportingSettings } from './events.js';
import { type Fiu, fiuOf } from './fiu.js';
import type { ReportedTransaction, ReportPorts } from './ports.js';
import { customerTypeOf, isReportable, lowestThreshold } from './threshold.js';
import { accountsOf, fieldsOf, localAmount, type Parties } from './transactions.js';

/** The transactions a case is about: each alert's, in the order they joined, and the transaction it was opened for. */
const caseTransactionIds = (c: { record: { id: string; type: string }; alerts: { transactionId: string }[] }): string[] => [
  ...new Set([...(c.record.type === 'transaction' ? [c.record.id] : []), ...c.alerts.map((a) => a.transactionId)]),
];

/** The rejected report a draft corrects. */
export interface Previous {
  reportId: string;
  version: number;
  fiuReference: string | null;
}

/** Builds report drafts (the goAML document and what it lacks) from the records as they are now. */
export class ReportDrafts {
  constructor(
    private readonly deps: {
      db: Kysely<DecisionDaysTables>;
      store: EventStore;
      clock: Clock;
      ports: ReportPorts;
      fius: ReadonlyMap<string, Fiu>;
      /** The business's reporting settings, or a ConflictError when it has none. */
      settings(businessId: string): Promise<ReportingSettings>;
    },
  ) {}

  /** The transactions a threshold report of `date` carries, in log order. */
  async thresholdTransactions(businessId: string, date: string): Promise<{ tx: ReportedTransaction; parties: Parties }[]> {
    checkDay(date);
    const settings = await this.deps.settings(businessId);
    const lowest = lowestThreshold(settings);
    const picked: { tx: ReportedTransaction; parties: Parties }[] = [];
    // The business's day, as a range of instants: only its decisions are read from the log.
    const from = Date.parse(`${date}T00:00:00Z`) - settings.utcOffsetMinutes * 60_000;
    const day = { from: new Date(from).toISOString(), to: new Date(from + 86_400_000).toISOString() };
    for await (const tx of decisionsBetween(this.deps.db, this.deps.store, businessId, day)) {
      // Most transactions are below both thresholds: they are left out before their customers are looked up.
      const amount = localAmount(fieldsOf(tx), settings.currency);
      if (amount === undefined || amount.lt(lowest)) continue;
      const parties = await this.#parties(businessId, tx);
      if (isReportable(tx, customerTypeOf(tx, parties.customer), date, settings)) picked.push({ tx, parties });
    }
    return picked;
  }

  /** An STR's draft from the case and its transactions' records as they are now. */
  async str(actor: ReportActor, reportId: string, caseId: string, action: string | null, previous: Previous | null): Promise<Draft> {
    const { businessId } = actor;
    const settings = await this.deps.settings(businessId);
    const fiu = fiuOf(this.deps.fius, settings.fiu);
    const found = await this.deps.ports.cases.get(businessId, caseId);
    const transactions = await Promise.all(
      caseTransactionIds(found).map(async (id) => {
        const tx = await this.deps.ports.monitoring.transaction(businessId, id);
        return { tx, parties: await this.#parties(businessId, tx) };
      }),
    );
    const reason = `${found.title}. ${found.description} ${firedRulesInWords(transactions.map((t) => t.tx))}`.trim();
    const taken = action ?? 'The case was investigated and closed as reported to the FIU.';
    const { document, missing } = reportDocument(
      {
        reportId,
        reportCode: fiu.reportCodes.str,
        indicators: fiu.indicators.str,
        reportDate: this.deps.clock.now().toISOString(),
        reason,
        action: taken,
        previousRejected: previous?.fiuReference ?? null,
        transactions,
      },
      settings,
      fiu,
    );
    return this.#draft(actor, reportId, { kind: 'str', caseId, date: null, fiu: fiu.id, document, missing, transactions, previous });
  }

  /** A threshold report's draft of the business's day `date`. */
  async threshold(actor: ReportActor, reportId: string, date: string, previous: Previous | null): Promise<Draft> {
    checkDay(date);
    const settings = await this.deps.settings(actor.businessId);
    const fiu = fiuOf(this.deps.fius, settings.fiu);
    const transactions = await this.thresholdTransactions(actor.businessId, date);
    if (transactions.length === 0)
      throw new NotFoundError(`No transaction of ${date} is at or above the thresholds: there is nothing to report`);
    const { document, missing } = reportDocument(
      {
        reportId,
        reportCode: fiu.reportCodes.threshold,
        indicators: fiu.indicators.threshold,
        reportDate: this.deps.clock.now().toISOString(),
        reason: `Transactions of ${date} at or above ${settings.currency} ${settings.thresholds.individual} (individuals) and ${settings.currency} ${settings.thresholds.corporate} (corporates).`,
        action: null,
        previousRejected: previous?.fiuReference ?? null,
        transactions,
      },
      settings,
      fiu,
    );
    return this.#draft(actor, reportId, { kind: 'threshold', caseId: null, date, fiu: fiu.id, document, missing, transactions, previous });
  }

  #draft(
    actor: ReportActor,
    reportId: string,
    d: Pick<Draft, 'kind' | 'caseId' | 'date' | 'fiu' | 'document' | 'missing'> & {
      transactions: { tx: ReportedTransaction }[];
      previous: Previous | null;
    },
  ): Draft {
    return {
      reportId,
      kind: d.kind,
      caseId: d.caseId,
      date: d.date,
      version: d.previous ? d.previous.version + 1 : 1,
      correctionOf: d.previous?.reportId ?? null,
      fiu: d.fiu,
      transactionIds: d.transactions.map((t) => t.tx.transactionId),
      document: d.document,
      missing: d.missing,
      by: actorName(actor),
    };
  }

  async #parties(businessId: string, tx: ReportedTransaction): Promise<Parties> {
    const f = fieldsOf(tx);
    const accounts = accountsOf(f);
    const find = (key: string | null | undefined) => (key ? this.deps.ports.customers.find(businessId, key) : Promise.resolve(undefined));
    const userId = f.anonymizedUserData?.uniqueId;
    const [byUser, counterparty] = await Promise.all([find(userId), find(accounts.counterparty)]);
    // A switch's user id is often not the CDD customer's: then the sending account names the customer.
    const customer = byUser ?? (accounts.customer !== userId ? await find(accounts.customer) : undefined);
    return { customer, counterparty };
  }
}

/** A day as YYYY-MM-DD, or a ValidationError naming `date`. */
function checkDay(date: string): void {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(Date.parse(date)))
    throw new ValidationError('date must be a day as YYYY-MM-DD', 'date');
}
