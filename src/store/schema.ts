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

/** PL/pgSQL is built into PostgreSQL (no extension); TRUNCATE, which skips row triggers, is refused too. */
async function appendOnlyOnPostgres(db: Kysely<any>): Promise<void> {
  await sql`CREATE OR REPLACE FUNCTION events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'events are append-only: % rejected', TG_OP; END $$`.execute(db);
  await sql`CREATE OR REPLACE TRIGGER events_no_update_delete BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION events_append_only()`.execute(db);
  await sql`CREATE OR REPLACE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION events_append_only()`.execute(db);
}
