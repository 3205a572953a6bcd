// When each decided transaction happened, by business: a day's threshold batch reads one index range of it and then
// only those decisions from the log, instead of every decision the business ever made. Reports' own read model of
// the monitoring domain's TransactionDecided events. Deferred: applied after the commits, many decisions a
// transaction, so the instant path does not pay for it; its reader settles it first.
import { sql, type Kysely } from 'kysely';
import type { TransactionDecidedData } from '../monitoring/events.js';
import { defineProjection } from '../projections/index.js';
import { backendOf, insertRows, type EventStore, type StoredEvent } from '../store/index.js';
import type { ReportedTransaction } from './ports.js';
import type { TransactionFields } from './transactions.js';

export interface DecisionDaysTable {
  business_id: string;
  /** The instant the transaction happened (its own date, else when it was decided), as UTC ISO text. */
  happened_at: string;
  position: number;
}

export interface DecisionDaysTables {
  reports_decision_days: DecisionDaysTable;
}

const reported = (data: TransactionDecidedData): ReportedTransaction => ({
  transactionId: data.transactionId,
  reference: data.reference,
  decidedAt: data.decidedAt,
  request: data.request,
  reason: data.decision.reason,
  ruleResult: data.decision.ruleResult,
});

export const decisionDaysProjection = defineProjection<DecisionDaysTables>({
  name: 'reports-decision-days',
  handles: ['TransactionDecided'],
  tables: [{ name: 'reports_decision_days', key: ['business_id', 'position'] }],
  deferred: true,
  async migrate(db: Kysely<any>) {
    await createDays(db);
    if (await hasTimeIndex(db)) await rekey(db);
  },
  apply: (db, stored) => insertDays(db, [stored]),
  applyMany: insertDays,
});

/**
 * Keyed by what its one query ranges over, a business's instants, so that the table is that index: one B-tree entry
 * a decision (without rowid) where a key on (business, position) and an index on the instants took three.
 */
const createDays = (db: Kysely<any>) =>
  db.schema
    .createTable('reports_decision_days')
    .ifNotExists()
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('happened_at', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('reports_decision_days_pk', ['business_id', 'happened_at', 'position'])
    .modifyEnd(sql`without rowid`)
    .execute();

/** The index a table keyed by (business, position) had for the query. */
async function hasTimeIndex(db: Kysely<any>): Promise<boolean> {
  const found =
    backendOf(db) === 'postgres'
      ? await sql`select 1 from pg_indexes where indexname = 'reports_decision_days_time' and schemaname = current_schema()`.execute(db)
      : await sql`select 1 from sqlite_master where type = 'index' and name = 'reports_decision_days_time'`.execute(db);
  return found.rows.length > 0;
}

/** A table keyed by (business, position), with its index on the instants, keyed as createDays keys it, rows kept. */
async function rekey(db: Kysely<any>): Promise<void> {
  await db.transaction().execute(async (tx) => {
    if (backendOf(tx) === 'postgres') {
      await sql`alter table reports_decision_days drop constraint reports_decision_days_pk`.execute(tx);
      await sql`alter table reports_decision_days add constraint reports_decision_days_pk primary key (business_id, happened_at, position)`.execute(
        tx,
      );
      await sql`drop index reports_decision_days_time`.execute(tx);
      return;
    }
    // SQLite changes no table's key in place: the rows move to a table made afresh.
    await sql`alter table reports_decision_days rename to reports_decision_days_old`.execute(tx);
    await createDays(tx);
    await sql`insert into reports_decision_days select business_id, happened_at, position from reports_decision_days_old`.execute(tx);
    await sql`drop table reports_decision_days_old`.execute(tx);
  });
}

/** One multi-row insert for a pass's decisions. */
async function insertDays(db: Kysely<any>, events: readonly StoredEvent[]): Promise<void> {
  const rows: unknown[][] = [];
  for (const stored of events) {
    const data = stored.data as TransactionDecidedData;
    // As threshold.ts's happenedAt, read defensively: a projection that throws would stop the log's read models.
    const at = new Date((data.request as Partial<TransactionFields> | null)?.transactionData?.transactionDate ?? data.decidedAt);
    // A date that does not parse falls on no day: no batch can report it.
    if (!Number.isNaN(at.getTime())) rows.push([stored.metadata.businessId, at.toISOString(), stored.position]);
  }
  for (const insert of insertRows(backendOf(db), 'reports_decision_days', ['business_id', 'happened_at', 'position'], rows))
    await db.executeQuery(insert);
}

/** Decisions read from the log per query. */
const PAGE = 500;

/** The business's decisions that happened in [from, to) (UTC ISO instants), in log order, read a page at a time. */
export async function* decisionsBetween(
  db: Kysely<DecisionDaysTables>,
  store: EventStore,
  businessId: string,
  range: { from: string; to: string },
): AsyncGenerator<ReportedTransaction> {
  await store.settleDeferred();
  const rows = await db
    .selectFrom('reports_decision_days')
    .select('position')
    .where('business_id', '=', businessId)
    .where('happened_at', '>=', range.from)
    .where('happened_at', '<', range.to)
    .execute();
  const positions = rows.map((r) => Number(r.position)).sort((a, b) => a - b);
  for (let i = 0; i < positions.length; i += PAGE) {
    for (const e of await store.readPositions(positions.slice(i, i + PAGE))) yield reported(e.data as TransactionDecidedData);
  }
}
