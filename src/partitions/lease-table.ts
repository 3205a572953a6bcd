import { type Kysely, sql } from 'kysely';
import { backendOf } from '../store/index.js';

/**
 * The leases of partitions, and the nodes that hold them (PostgreSQL only: an embedded SQLite engine is one process
 * and owns every partition). A table, not the log: a lease is coordination between live processes, renewed every
 * second and gone when its node is. Written to the log it would add a write a second per node to the one ordered
 * chain and be handed out to auditors and partners forever, though it decides nothing: every decision, whichever
 * node made it, is in the log. Times are the database's (`clock_timestamp()`), so the nodes' clocks need not agree.
 *
 * - `partition_nodes`: one row a node, its advertised URL and when its membership lapses; the live rows are the
 *   nodes a business's partitions are shared among.
 * - `partition_leases`: one row a leased partition of a business: its owner, the owner's URL, and when the lease
 *   lapses. An expired row is free; another node takes it over by overwriting it.
 */
export async function migrateLeases(db: Kysely<any>): Promise<void> {
  if (backendOf(db) === 'sqlite') return;
  await sql`create table if not exists partition_nodes (
    node_id text collate "C" primary key,
    node_url text not null,
    expires_at timestamptz not null)`.execute(db);
  await sql`create table if not exists partition_leases (
    business_id text collate "C" not null,
    partition integer not null,
    node_id text collate "C" not null,
    node_url text not null,
    expires_at timestamptz not null,
    primary key (business_id, partition))`.execute(db);
}
