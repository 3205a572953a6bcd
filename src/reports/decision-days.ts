// When each decided transaction happened, by business: a day's threshold batch reads one index range of it and then
// only those decisions from the log, instead of every decision the business ever made. Reports' own read model of
// the monitoring domain's TransactionDecided events. Deferred: applied after the commits, many decisions a
// transaction, so the instant path does not pay for it; its reader settles it first.
import { sql, type Kysely } from 'kysely';
import type { TransactionDecidedData } from '../monitoring/events.js';
import { storedPartition } from '../partitions/index.js';
import { defineProjection } from '../projections/index.js';
import { backendOf, insertRows, type EventStore, type StoredEvent } from '../store/index.js';
import type { ReportedTransaction } from './ports.js';
import type { TransactionFields } from './transactions.js';

export interface DecisionDaysTable {
  business_id: string;
  /** The decision's partition (its metadata's): with the business, the distribution column (docs/postgres.md). */
  partition: number;
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
  tables: [{ name: 'reports_decision_days', key: ['business_id', 'partition', 'position'] }],
  deferred: true,
  async migrate(db: Kysely<any>) {
    await dropOlderLayout(db);
    await createDays(db);
  },
  apply: (db, stored) => insertDays(db, [stored]),
  applyMany: insertDays,
});

/**
 * Keyed by the distribution column, then what its one query ranges over, a partition's instants, so that the table
 * is that index: one B-tree entry a decision (without rowid). A day's read is one range in each of the business's
 * partitions, merged into log order.
 */
const createDays = (db: Kysely<any>) =>
  db.schema
    .createTable('reports_decision_days')
    .ifNotExists()
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('partition', 'integer', (c) => c.notNull())
    .addColumn('happened_at', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('reports_decision_days_pk', ['business_id', 'partition', 'happened_at', 'position'])
    .modifyEnd(sql`without rowid`)
    .execute();

/**
 * A table of an older layout (no partition) is dropped with its checkpoint, so that the deferred passes rebuild it
 * from the log, placing each decision stored before its metadata carried a partition by its request
 * (storedPartition); its reader settles it first, so it waits for the rebuild rather than read it half built.
 */
async function dropOlderLayout(db: Kysely<any>): Promise<void> {
  const table = (await db.introspection.getTables()).find((t) => t.name === 'reports_decision_days');
  if (!table || table.columns.some((c) => c.name === 'partition')) return;
  await db.schema.dropTable('reports_decision_days').execute();
  await db.deleteFrom('projection_checkpoints').where('name', '=', decisionDaysProjection.name).execute();
}

const DAY_COLUMNS = ['business_id', 'partition', 'happened_at', 'position'] as const;

/** One multi-row insert for a pass's decisions. */
async function insertDays(db: Kysely<any>, events: readonly StoredEvent[]): Promise<void> {
  const rows: unknown[][] = [];
  for (const stored of events) {
    const data = stored.data as TransactionDecidedData;
    // As threshold.ts's happenedAt, read defensively: a projection that throws would stop the log's read models.
    const at = new Date((data.request as Partial<TransactionFields> | null)?.transactionData?.transactionDate ?? data.decidedAt);
    // A date that does not parse falls on no day: no batch can report it.
    if (!Number.isNaN(at.getTime()))
      rows.push([stored.metadata.businessId, storedPartition(stored.metadata, data.request), at.toISOString(), stored.position]);
  }
  for (const insert of insertRows(backendOf(db), 'reports_decision_days', DAY_COLUMNS, rows)) await db.executeQuery(insert);
}

/**
 * The partitions the business has rows in, one index probe each (a loose index scan, in SQLite and PostgreSQL alike):
 * with them named, a range over every partition's instants is a probe per partition rather than a scan.
 */
async function partitionsOf(db: Kysely<DecisionDaysTables>, businessId: string): Promise<number[]> {
  const { rows } = await sql<{ p: number }>`with recursive present(p) as (
    select min("partition") from reports_decision_days where business_id = ${businessId}
    union all
    select (select min("partition") from reports_decision_days where business_id = ${businessId} and "partition" > present.p)
    from present where present.p is not null
  ) select p from present where p is not null`.execute(db);
  return rows.map((r) => Number(r.p));
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
  const partitions = await partitionsOf(db, businessId);
  if (partitions.length === 0) return;
  const rows = await db
    .selectFrom('reports_decision_days')
    .select('position')
    .where('business_id', '=', businessId)
    .where('partition', 'in', partitions)
    .where('happened_at', '>=', range.from)
    .where('happened_at', '<', range.to)
    .execute();
  const positions = rows.map((r) => Number(r.position)).sort((a, b) => a - b);
  for (let i = 0; i < positions.length; i += PAGE) {
    for (const e of await store.readPositions(positions.slice(i, i + PAGE))) yield reported(e.data as TransactionDecidedData);
  }
}
