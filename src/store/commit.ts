import { sql, type Kysely } from 'kysely';
import { insertEvents, planAppend, type AppendOutcome, type BatchReply, type BatchRequest, type Head, type Planned, type RowHeader } from './batch.js';
import { GENESIS_HASH } from './hash.js';
import { freshEvent } from './rows.js';
import type { EventsTable, StoreTables } from './schema.js';
import type { EventMetadata, StoredEvent } from './types.js';

/** Runs inside the append's transaction, so read models commit (or roll back) with the events. */
export interface InlineProjector {
  apply(db: Kysely<any>, events: readonly StoredEvent[]): Promise<void>;
}

/**
 * Commits one group-commit batch in one transaction (one fsync). Fast path: the whole batch in one insert and
 * one projection pass. If any of that fails (a projection rejecting one append's events), it falls back to one
 * savepoint per append, so only the faulty append fails and the others still commit.
 */
export async function commitBatch(db: Kysely<any>, projector: InlineProjector | undefined, request: BatchRequest): Promise<BatchReply> {
  return db.connection().execute(async (conn: Kysely<StoreTables>) => {
    // Only a batch with appends takes the write lock; a bare catch-up is a read transaction.
    await (request.appends.length > 0 ? sql`begin immediate` : sql`begin`).execute(conn);
    try {
      const head = await readHead(conn);
      const external = head.position > request.after ? await readRange(conn, request.after, head.position) : [];
      const { outcomes, head: last } = request.appends.length === 0 ? { outcomes: [], head } : await writeAppends(conn, projector, request, head);
      await sql`commit`.execute(conn);
      return { external, outcomes, head: last.position };
    } catch (error) {
      await sql`rollback`.execute(conn).catch(() => undefined);
      throw error;
    }
  });
}

export async function readHead(db: Kysely<StoreTables>): Promise<Head> {
  const row = await db.selectFrom('events').select(['global_position', 'hash']).orderBy('global_position', 'desc').limit(1).executeTakeFirst();
  return row ? { position: row.global_position, hash: row.hash } : { position: 0, hash: GENESIS_HASH };
}

async function writeAppends(
  conn: Kysely<StoreTables>,
  projector: InlineProjector | undefined,
  request: BatchRequest,
  head: Head,
): Promise<{ outcomes: AppendOutcome[]; head: Head }> {
  const { appends, recordedAt } = request;
  const recordedMs = Date.parse(recordedAt);
  let versions = await loadVersions(conn, appends);
  const plan = (i: number, at: Head): Planned | { error: unknown } => {
    try {
      return planAppend(appends[i]!, at, versions, recordedAt, recordedMs);
    } catch (error) {
      return { error };
    }
  };
  const advance = (planned: Planned) => {
    for (const row of planned.rows) versions.set(row.stream_id, row.stream_version);
    return planned.head;
  };

  const fast: (Planned | { error: unknown })[] = [];
  let at = head;
  for (let i = 0; i < appends.length; i++) {
    const outcome = plan(i, at);
    if ('rows' in outcome) at = advance(outcome);
    fast.push(outcome);
  }
  const accepted = fast.filter((o): o is Planned => 'rows' in o);
  if (accepted.length === 0) return { outcomes: fast.map(toOutcome), head };
  await sql`savepoint batch`.execute(conn);
  try {
    await persist(conn, projector, accepted.flatMap((o) => o.rows));
    await sql`release batch`.execute(conn);
    return { outcomes: fast.map(toOutcome), head: at };
  } catch {
    await sql`rollback to batch`.execute(conn);
    await sql`release batch`.execute(conn);
  }

  // Rolled back to before the batch: the versions are read again rather than copied ahead of a rare failure.
  versions = await loadVersions(conn, appends);
  const outcomes: AppendOutcome[] = [];
  at = head;
  for (let i = 0; i < appends.length; i++) {
    const outcome = plan(i, at);
    if (!('rows' in outcome)) {
      outcomes.push(outcome);
      continue;
    }
    await sql`savepoint append_one`.execute(conn);
    try {
      await persist(conn, projector, outcome.rows);
      await sql`release append_one`.execute(conn);
      at = advance(outcome);
      outcomes.push(toOutcome(outcome));
    } catch (error) {
      await sql`rollback to append_one`.execute(conn);
      await sql`release append_one`.execute(conn);
      outcomes.push({ error });
    }
  }
  return { outcomes, head: at };
}

const toOutcome = (o: Planned | { error: unknown }): AppendOutcome =>
  'rows' in o ? { rows: o.rows.map(({ data: _d, metadata: _m, ...header }): RowHeader => header), nextVersions: o.nextVersions } : o;

async function persist(conn: Kysely<StoreTables>, projector: InlineProjector | undefined, rows: readonly EventsTable[]): Promise<void> {
  if (rows.length === 0) return;
  // SQLite caps bound parameters per statement; 10 columns x 500 rows stays well inside it.
  for (let i = 0; i < rows.length; i += 500) await conn.executeQuery(insertEvents(rows.slice(i, i + 500)));
  if (!projector) return;
  const metadata = new Map<string, EventMetadata>();
  const events = rows.map((row) => {
    let parsed = metadata.get(row.metadata);
    if (!parsed) metadata.set(row.metadata, (parsed = JSON.parse(row.metadata) as EventMetadata));
    return freshEvent(row, parsed);
  });
  await projector.apply(conn, events);
}

async function loadVersions(conn: Kysely<StoreTables>, appends: BatchRequest['appends']): Promise<Map<string, number>> {
  const ids = [...new Set(appends.flatMap((a) => a.writes.map((w) => w.streamId)))];
  const versions = new Map<string, number>();
  for (let i = 0; i < ids.length; i += 5000) {
    const rows = await conn
      .selectFrom('events')
      .select((eb) => ['stream_id', eb.fn.max('stream_version').as('version')])
      .where('stream_id', 'in', ids.slice(i, i + 5000))
      .groupBy('stream_id')
      .execute();
    for (const r of rows) versions.set(r.stream_id, r.version);
  }
  return versions;
}

export async function readRange(db: Kysely<StoreTables>, after: number, upTo: number): Promise<EventsTable[]> {
  return db.selectFrom('events').selectAll().where('global_position', '>', after).where('global_position', '<=', upTo).orderBy('global_position').execute();
}
