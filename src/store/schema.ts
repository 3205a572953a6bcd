import { sql, type Kysely } from 'kysely';
import { backendOf } from './backend.js';
import { migrateSecrets } from './secrets.js';

export interface EventsTable {
  global_position: number;
  event_id: string;
  stream_id: string;
  stream_version: number;
  type: string;
  schema_version: number;
  data: string;
  metadata: string;
  recorded_at: string;
  hash: string;
  /**
   * The partition of the decision that caused the append (its metadata's `partition`), so that a reader tells a
   * row's partition without its metadata; null for events of no partition and for rows written before the column.
   * Not hashed: the metadata it is copied from is.
   */
  partition: number | null;
}

/**
 * A row as a node's catch-up reads it (commit.ts readRange). Of a partition the node does not read whole, its
 * header alone: `data` and `metadata` null, its business named by `business_id`. `business_id` is set on every row
 * of a partition, so the control fence keys partitions without parsing metadata; null on the others.
 */
export interface TailRow extends Omit<EventsTable, 'data' | 'metadata'> {
  data: string | null;
  metadata: string | null;
  business_id: string | null;
}

export interface CheckpointsTable {
  name: string;
  position: number;
}

export interface StoreTables {
  events: EventsTable;
  projection_checkpoints: CheckpointsTable;
}

/** Creates the log's tables. The triggers make the log append-only even for code that bypasses the store. */
export async function migrateStore(db: Kysely<StoreTables>): Promise<void> {
  await db.schema
    .createTable('events')
    .ifNotExists()
    .addColumn('global_position', 'integer', (c) => c.primaryKey())
    .addColumn('event_id', 'text', (c) => c.notNull().unique())
    .addColumn('stream_id', 'text', (c) => c.notNull())
    .addColumn('stream_version', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('schema_version', 'integer', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('recorded_at', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addUniqueConstraint('events_stream_version', ['stream_id', 'stream_version'])
    .execute();
  await addPartitionColumn(db);
  await db.schema.createIndex('events_type').ifNotExists().on('events').columns(['type', 'global_position']).execute();
  // A stream's version is the highest stream_version in the unique index; the former `streams` table cost one
  // more random B-tree write per event and is dropped from databases that still have it.
  await db.schema.dropTable('streams').ifExists().execute();
  await db.schema
    .createTable('projection_checkpoints')
    .ifNotExists()
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('position', 'integer', (c) => c.notNull())
    .execute();
  if (backendOf(db) === 'postgres') {
    await migrateSecrets(db);
    await appendOnlyOnPostgres(db);
    return;
  }
  await sql`CREATE TRIGGER IF NOT EXISTS events_no_update BEFORE UPDATE ON events
    BEGIN SELECT RAISE(ABORT, 'events are append-only: UPDATE rejected'); END`.execute(db);
  await sql`CREATE TRIGGER IF NOT EXISTS events_no_delete BEFORE DELETE ON events
    BEGIN SELECT RAISE(ABORT, 'events are append-only: DELETE rejected'); END`.execute(db);
}

/** Stores created before the column get it, null in every existing row (nothing is rewritten). */
async function addPartitionColumn(db: Kysely<any>): Promise<void> {
  if (backendOf(db) === 'postgres') {
    await sql`alter table events add column if not exists "partition" integer`.execute(db);
    return;
  }
  const columns = await sql<{ name: string }>`pragma table_info(events)`.execute(db);
  if (!columns.rows.some((c) => c.name === 'partition')) await sql`alter table events add column "partition" integer`.execute(db);
}

/** PL/pgSQL is built into PostgreSQL (no extension); TRUNCATE, which skips row triggers, is refused too. */
async function appendOnlyOnPostgres(db: Kysely<any>): Promise<void> {
  await sql`CREATE OR REPLACE FUNCTION events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'events are append-only: % rejected', TG_OP; END $$`.execute(db);
  await sql`CREATE OR REPLACE TRIGGER events_no_update_delete BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION events_append_only()`.execute(db);
  await sql`CREATE OR REPLACE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION events_append_only()`.execute(db);
}
