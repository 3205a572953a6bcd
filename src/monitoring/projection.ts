// Read models: blacklist entries (for paged listing), saved devices, and each decision's reference. A decision
// itself lives on its own stream, found by transaction id.
import { sql, type Kysely } from 'kysely';
import { ConflictError } from '../errors.js';
import { defineProjection } from '../projections/index.js';
import { backendOf, insertRows, isUniqueViolation, type StoredEvent } from '../store/index.js';
import { transactionIdOf, type MonitoringEvent, type TransactionDecidedData } from './events.js';

export interface BlacklistTable {
  business_id: string;
  list: string;
  value: string;
  added_at: string;
  added_by: string | null;
}

export interface DevicesTable {
  business_id: string;
  customer_id: string;
  device_id: string;
  details: string;
  saved_at: string;
}

export interface TransactionReferencesTable {
  business_id: string;
  reference: string;
  transaction_id: string;
}

export interface DecisionPositionsTable {
  business_id: string;
  position: number;
}

export interface MonitoringTables {
  tm_blacklist: BlacklistTable;
  tm_devices: DevicesTable;
  tm_transaction_refs: TransactionReferencesTable;
  tm_decision_positions: DecisionPositionsTable;
}

export const monitoringProjection = defineProjection<MonitoringTables>({
  name: 'transaction-monitoring-lists',
  handles: ['BlacklistEntryAdded', 'BlacklistEntryRemoved', 'CustomerDeviceSaved'] satisfies MonitoringEvent['type'][],
  tables: [
    { name: 'tm_blacklist', key: ['business_id', 'list', 'value'] },
    { name: 'tm_devices', key: ['business_id', 'customer_id', 'device_id'] },
  ],
  async migrate(db: Kysely<any>) {
    await db.schema
      .createTable('tm_blacklist')
      .ifNotExists()
      .addColumn('business_id', 'text', (c) => c.notNull())
      .addColumn('list', 'text', (c) => c.notNull())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('added_at', 'text', (c) => c.notNull())
      .addColumn('added_by', 'text')
      .addPrimaryKeyConstraint('tm_blacklist_pk', ['business_id', 'list', 'value'])
      .execute();
    await db.schema
      .createTable('tm_devices')
      .ifNotExists()
      .addColumn('business_id', 'text', (c) => c.notNull())
      .addColumn('customer_id', 'text', (c) => c.notNull())
      .addColumn('device_id', 'text', (c) => c.notNull())
      .addColumn('details', 'text', (c) => c.notNull())
      .addColumn('saved_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('tm_devices_pk', ['business_id', 'customer_id', 'device_id'])
      .execute();
  },
  async apply(db, stored) {
    const event = { type: stored.type, data: stored.data } as MonitoringEvent;
    const business_id = stored.metadata.businessId;
    switch (event.type) {
      case 'BlacklistEntryAdded':
        await db
          .insertInto('tm_blacklist')
          .values({
            business_id,
            list: event.data.list,
            value: event.data.value,
            added_at: stored.recordedAt,
            added_by: stored.metadata.actor ?? null,
          })
          .execute();
        break;
      case 'BlacklistEntryRemoved':
        await db
          .deleteFrom('tm_blacklist')
          .where('business_id', '=', business_id)
          .where('list', '=', event.data.list)
          .where('value', '=', event.data.value)
          .execute();
        break;
      case 'CustomerDeviceSaved': {
        const { customerId, device } = event.data;
        const row = {
          business_id,
          customer_id: customerId,
          device_id: device.deviceId,
          details: JSON.stringify(device),
          saved_at: stored.recordedAt,
        };
        await db
          .insertInto('tm_devices')
          .values(row)
          .onConflict((oc) =>
            oc.columns(['business_id', 'customer_id', 'device_id']).doUpdateSet({ details: row.details, saved_at: row.saved_at }),
          )
          .execute();
        break;
      }
      case 'TransactionDecided':
        break;
    }
  },
});

/**
 * Which transaction id each (business, reference) was decided under: the instant path's idempotency record. The
 * primary key makes it the one guard of "one decision per reference", across processes too: it is written in the
 * decision's own transaction, so a second decision of a reference fails its append (ConflictError) and commits
 * nothing. Keyed by the reference as the switch sends it, not a hash of it: switches' references (NIP session
 * ids, RRNs) begin with a date or a sequence, so new rows go to the index's right edge.
 */
export const transactionReferencesProjection = defineProjection<MonitoringTables>({
  name: 'transaction-monitoring-references',
  handles: ['TransactionDecided'] satisfies MonitoringEvent['type'][],
  tables: [{ name: 'tm_transaction_refs', key: ['business_id', 'reference'] }],
  async migrate(db: Kysely<any>) {
    await db.schema
      .createTable('tm_transaction_refs')
      .ifNotExists()
      .addColumn('business_id', 'text', (c) => c.notNull())
      .addColumn('reference', 'text', (c) => c.notNull())
      .addColumn('transaction_id', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('tm_transaction_refs_pk', ['business_id', 'reference'])
      .modifyEnd(sql`without rowid`)
      .execute();
  },
  apply: (db, stored) => insertReferences(db, [stored]),
  applyMany: insertReferences,
});

/** One multi-row insert for a batch's decisions. */
async function insertReferences(db: Kysely<any>, events: readonly StoredEvent[]): Promise<void> {
  // Decisions carry their reference in the metadata, so the writer need not parse the data (~12 µs a decision);
  // the oldest decisions have it in the data only.
  const referenceOf = (stored: StoredEvent) => stored.metadata.idempotencyKey ?? (stored.data as TransactionDecidedData).reference;
  const rows = events.map((stored) => [stored.metadata.businessId, referenceOf(stored), transactionIdOf(stored.streamId)]);
  try {
    for (const insert of insertRows(backendOf(db), 'tm_transaction_refs', REFERENCE_COLUMNS, rows)) await db.executeQuery(insert);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    // Of several, the store writes them again one append at a time, and the one already decided fails alone.
    throw new ConflictError(
      events.length === 1
        ? `transactionData.reference ${referenceOf(events[0]!)} was already decided`
        : 'a transactionData.reference of the batch was already decided',
    );
  }
}

const REFERENCE_COLUMNS = ['business_id', 'reference', 'transaction_id'] as const;

/** The transaction id a business's reference was decided under, if it was: a read of the references read model. */
export function transactionIdByReference(db: Kysely<MonitoringTables>) {
  return async (businessId: string, reference: string): Promise<string | undefined> => {
    const row = await db
      .selectFrom('tm_transaction_refs')
      .select('transaction_id')
      .where('business_id', '=', businessId)
      .where('reference', '=', reference)
      .executeTakeFirst();
    return row?.transaction_id;
  };
}

/**
 * Where each business's decisions are in the log: a backtest reads one business's decisions by this index instead
 * of scanning every tenant's. Keyed by business then position, so a business's rows are one range in log order.
 */
export const decisionPositionsProjection = defineProjection<MonitoringTables>({
  name: 'transaction-monitoring-decision-positions',
  handles: ['TransactionDecided'] satisfies MonitoringEvent['type'][],
  tables: [{ name: 'tm_decision_positions', key: ['business_id', 'position'] }],
  async migrate(db: Kysely<any>) {
    await db.schema
      .createTable('tm_decision_positions')
      .ifNotExists()
      .addColumn('business_id', 'text', (c) => c.notNull())
      .addColumn('position', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('tm_decision_positions_pk', ['business_id', 'position'])
      .modifyEnd(sql`without rowid`)
      .execute();
  },
  apply: (db, stored) => insertPositions(db, [stored]),
  applyMany: insertPositions,
});

async function insertPositions(db: Kysely<any>, events: readonly StoredEvent[]): Promise<void> {
  const rows = events.map((stored) => [stored.metadata.businessId, stored.position]);
  for (const insert of insertRows(backendOf(db), 'tm_decision_positions', ['business_id', 'position'], rows)) await db.executeQuery(insert);
}

/** Log positions of a business's decisions after `after` and up to `upTo`, in log order, at most `limit`. */
export async function decisionPositions(
  db: Kysely<MonitoringTables>,
  businessId: string,
  range: { after: number; upTo: number; limit: number },
): Promise<number[]> {
  const rows = await db
    .selectFrom('tm_decision_positions')
    .select('position')
    .where('business_id', '=', businessId)
    .where('position', '>', range.after)
    .where('position', '<=', range.upTo)
    .orderBy('position')
    .limit(range.limit)
    .execute();
  return rows.map((r) => r.position);
}
