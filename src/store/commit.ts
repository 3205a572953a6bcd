import { CompiledQuery, type Kysely } from 'kysely';
import pg from 'pg';
import { insertEvents, planAppend, type AppendOutcome, type BatchReply, type BatchRequest, type Head, type Planned } from './batch.js';
import { type Backend, backendOf, placeholdersFor } from './backend.js';
import { ADVISORY_KEYS } from './database.js';
import type { ControlFence, FenceBatch } from './fence.js';
import { readTail } from './reads.js';
import { GENESIS_HASH } from './hash.js';
import { freshEvent, headerOf } from './rows.js';
import type { EventsTable, StoreTables } from './schema.js';
import { epochMs } from './trace.js';
import type { EventMetadata, StoredEvent } from './types.js';
import type { Upcasters } from './upcasters.js';

/** What one pass of the deferred read models did (InlineProjector.applyDeferred). */
export interface DeferredReply {
  /** Events applied. */
  applied: number;
  /** The log position the deferred read models now stand at. */
  through: number;
  /** Whether they reached the head the pass read; when not, another pass has more to do. */
  done: boolean;
  /** When the writer ran the page (epoch ms, epochMs): set by the serial committer. */
  ran?: { started: number; ended: number };
}

/** Runs inside the append's transaction, so read models commit (or roll back) with the events. */
export interface InlineProjector {
  apply(db: Kysely<any>, events: readonly StoredEvent[]): Promise<void>;
  /**
   * The read models kept off the commit path: applies up to `limit` events of the log after their checkpoint, in
   * a transaction of their own, on the connection the writer commits on.
   */
  applyDeferred(db: Kysely<any>, limit: number): Promise<DeferredReply>;
  /** What decodes the events it is handed, for the types stored encoded. */
  readonly upcasters?: Upcasters;
}

// The statements every batch runs, compiled once: at a few hundred commits a second, building them with the
// query builder cost more CPU than SQLite spent running them.
const BEGIN_WRITE = CompiledQuery.raw('begin immediate');
const BEGIN_READ = CompiledQuery.raw('begin');
const COMMIT = CompiledQuery.raw('commit');
const ROLLBACK = CompiledQuery.raw('rollback');
const SAVEPOINT = CompiledQuery.raw('savepoint append_one');
const RELEASE = CompiledQuery.raw('release append_one');
const ROLLBACK_TO = CompiledQuery.raw('rollback to append_one');
const HEAD = CompiledQuery.raw('select "global_position", "hash" from "events" order by "global_position" desc limit 1');
/**
 * PostgreSQL: an append transaction first takes the log's advisory lock, held until it commits or rolls back, so
 * appends from every node commit one at a time. Positions and hash links are assigned under the lock from the
 * head the transaction reads (read committed: that read sees every earlier append), so they follow commit order
 * with no gap, and a reader whose snapshot holds position N holds every position before it (docs/postgres.md).
 * Sent with BEGIN as one message (no parameters: the simple protocol runs both in one round trip). The head is
 * read by a statement of its own, after the lock is held: a statement's snapshot is taken when it starts.
 */
const BEGIN_LOCKED = CompiledQuery.raw(`begin; select pg_advisory_xact_lock(${ADVISORY_KEYS.append})`);
/** Delivered at commit to every node listening; the payload is the new head, this node's commit time and its name. */
export const LOG_CHANNEL = 'compliance_log';
/** The notification and the COMMIT in one round trip: the payload goes in as a literal, so no parameters. */
const notifyAndCommit = (payload: string) => CompiledQuery.raw(`select pg_notify('${LOG_CHANNEL}', ${pg.escapeLiteral(payload)}); commit`);

/** One append's events failed to insert or project while the whole batch was written at once. */
class BatchRejected extends Error {}

interface Written {
  outcomes: AppendOutcome[];
  head: Head;
}

/**
 * Commits one group-commit batch in one transaction (one fsync). Fast path: the whole batch in one insert and
 * one projection pass. If any of that fails (a projection rejecting one append's events), the transaction is
 * rolled back and the batch written again with one savepoint per append, so only the faulty append fails and
 * the others still commit. Failures are rare, so the fast path does without a savepoint of its own.
 */
export async function commitBatch(
  db: Kysely<any>,
  projector: InlineProjector | undefined,
  request: BatchRequest,
  fence?: ControlFence,
): Promise<BatchReply> {
  if (request.appends.length === 0) return catchUp(db, request, fence);
  return db.connection().execute(async (conn: Kysely<StoreTables>) => {
    try {
      return await inTransaction(conn, request, fence, (head, checks) => writeAll(conn, projector, request, head, checks));
    } catch (error) {
      if (!(error instanceof BatchRejected)) throw error;
      return inTransaction(conn, request, fence, (head, checks) => writeEach(conn, projector, request, head, checks));
    }
  });
}

/**
 * A batch with no appends: what others appended after `after`, in one statement and no transaction (a round trip
 * where BEGIN, the head, the rows and COMMIT took four). One statement's snapshot holds a prefix of the log with no
 * gap, since appends commit one at a time in position order, so its last row is the head it saw.
 */
async function catchUp(db: Kysely<StoreTables>, request: BatchRequest, fence: ControlFence | undefined): Promise<BatchReply> {
  const external = await readTail(db, request.after, Number.MAX_SAFE_INTEGER, request.whole);
  fence?.saw(external);
  return { external, outcomes: [], head: external.length > 0 ? Number(external[external.length - 1]!.global_position) : request.after };
}

async function inTransaction(
  conn: Kysely<StoreTables>,
  request: BatchRequest,
  fence: ControlFence | undefined,
  write: (head: Head, checks: FenceBatch | undefined) => Promise<Written>,
): Promise<BatchReply> {
  const backend = backendOf(conn);
  try {
    await conn.executeQuery(backend === 'sqlite' ? BEGIN_WRITE : BEGIN_LOCKED);
    const locked = request.timed ? epochMs() : undefined;
    const head = await readHead(conn);
    const external = head.position > request.after ? await readTail(conn, request.after, head.position, request.whole) : [];
    // Read under the append lock: every control event committed before this batch's appends is known to the fence.
    fence?.saw(external);
    const checks = fence?.batch();
    const { outcomes, head: last } = await write(head, checks);
    await conn.executeQuery(
      backend === 'postgres' && last.position > head.position
        ? notifyAndCommit(`${last.position}:${Date.now()}:${request.origin ?? ''}`)
        : COMMIT,
    );
    checks?.committed();
    return { external, outcomes, head: last.position, ...(locked !== undefined ? { lockedAt: locked } : {}) };
  } catch (error) {
    await conn.executeQuery(ROLLBACK).catch(() => undefined);
    throw error;
  }
}

/**
 * Runs `work` in a write transaction of its own on one connection (SQLite: `begin immediate`, so a read that turns
 * into a write never fails on a snapshot another connection moved past).
 */
export async function inWriteTransaction<T>(db: Kysely<any>, work: (conn: Kysely<any>) => Promise<T>): Promise<T> {
  return db.connection().execute(async (conn) => {
    await conn.executeQuery(backendOf(conn) === 'sqlite' ? BEGIN_WRITE : BEGIN_READ);
    try {
      const result = await work(conn);
      await conn.executeQuery(COMMIT);
      return result;
    } catch (error) {
      await conn.executeQuery(ROLLBACK).catch(() => undefined);
      throw error;
    }
  });
}

export async function readHead(db: Kysely<StoreTables>): Promise<Head> {
  const [row] = (await db.executeQuery<{ global_position: number; hash: string }>(HEAD)).rows;
  return row ? { position: row.global_position, hash: row.hash } : { position: 0, hash: GENESIS_HASH };
}

/** Plans each append in queue order from `head`; an append that cannot be planned (a version conflict) fails alone. */
class Planner {
  #at: Head;
  readonly #recordedMs: number;

  constructor(
    private readonly request: BatchRequest,
    head: Head,
    private readonly versions: Map<string, number>,
    private readonly fence: FenceBatch | undefined,
  ) {
    this.#at = head;
    this.#recordedMs = Date.parse(request.recordedAt);
  }

  get head(): Head {
    return this.#at;
  }

  plan(i: number): Planned | { error: unknown } {
    try {
      const append = this.request.appends[i]!;
      this.fence?.check(append);
      return planAppend(append, this.#at, this.versions, this.request.recordedAt, this.#recordedMs);
    } catch (error) {
      return { error };
    }
  }

  /** Takes a planned append as written: later appends see its positions and stream versions. */
  advance(planned: Planned): void {
    for (const row of planned.rows) this.versions.set(row.stream_id, row.stream_version);
    this.fence?.planned(planned.rows);
    this.#at = planned.head;
  }
}

async function writeAll(
  conn: Kysely<StoreTables>,
  projector: InlineProjector | undefined,
  request: BatchRequest,
  head: Head,
  fence: FenceBatch | undefined,
): Promise<Written> {
  const planner = new Planner(request, head, await loadVersions(conn, request.appends, true), fence);
  const planned = request.appends.map((_, i) => {
    const outcome = planner.plan(i);
    if ('rows' in outcome) planner.advance(outcome);
    return outcome;
  });
  const rows = planned.flatMap((o) => ('rows' in o ? o.rows : []));
  try {
    await persist(conn, projector, rows);
  } catch (error) {
    throw new BatchRejected('batch rejected', { cause: error });
  }
  return { outcomes: planned.map(toOutcome), head: planner.head };
}

async function writeEach(
  conn: Kysely<StoreTables>,
  projector: InlineProjector | undefined,
  request: BatchRequest,
  head: Head,
  fence: FenceBatch | undefined,
): Promise<Written> {
  const planner = new Planner(request, head, await loadVersions(conn, request.appends, false), fence);
  const outcomes: AppendOutcome[] = [];
  for (let i = 0; i < request.appends.length; i++) {
    const outcome = planner.plan(i);
    if (!('rows' in outcome)) {
      outcomes.push(outcome);
      continue;
    }
    await conn.executeQuery(SAVEPOINT);
    try {
      await persist(conn, projector, outcome.rows);
      await conn.executeQuery(RELEASE);
      planner.advance(outcome);
      outcomes.push(toOutcome(outcome));
    } catch (error) {
      await conn.executeQuery(ROLLBACK_TO);
      await conn.executeQuery(RELEASE);
      outcomes.push({ error });
    }
  }
  return { outcomes, head: planner.head };
}

const toOutcome = (o: Planned | { error: unknown }): AppendOutcome =>
  'rows' in o ? { rows: o.rows.map(headerOf), nextVersions: o.nextVersions } : o;

async function persist(conn: Kysely<StoreTables>, projector: InlineProjector | undefined, rows: readonly EventsTable[]): Promise<void> {
  if (rows.length === 0) return;
  for (const insert of insertEvents(backendOf(conn), rows)) await conn.executeQuery(insert);
  if (!projector) return;
  const metadata = new Map<string, EventMetadata>();
  const events = rows.map((row) => {
    let parsed = metadata.get(row.metadata);
    if (!parsed) metadata.set(row.metadata, (parsed = JSON.parse(row.metadata) as EventMetadata));
    return freshEvent(row, row.data, parsed, projector.upcasters);
  });
  await projector.apply(conn, events);
}

const versionTexts = new Map<string, string>();

/**
 * The highest version of each stream, for up to 5000 ids. The id list is padded to a power of two (repeating
 * its last id) so that a handful of statement texts serve every batch size.
 */
function versionsQuery(backend: Backend, ids: readonly string[]): CompiledQuery<{ stream_id: string; version: number }> {
  const size = 2 ** Math.ceil(Math.log2(ids.length));
  let text = versionTexts.get(`${backend}${size}`);
  if (!text) {
    text = placeholdersFor(
      backend,
      `select "stream_id", max("stream_version") as "version" from "events" where "stream_id" in (${Array(size).fill('?').join(', ')}) group by "stream_id"`,
    );
    versionTexts.set(`${backend}${size}`, text);
  }
  const params = [...ids];
  while (params.length < size) params.push(ids[ids.length - 1]!);
  return CompiledQuery.raw(text, params);
}

/**
 * The highest version of each stream the appends write to. With `trustNew` (the fast path), a stream that every
 * write of the batch expects to be new ('no_stream') is not looked up: most appends are decisions, each on a
 * stream of its own, and the lookup cost a random index probe per event. Should such a stream exist after all, its
 * first version is inserted again, the (stream_id, stream_version) unique index refuses it, and the batch is
 * written again append by append with every stream looked up (writeEach), where that append alone fails with its
 * version conflict.
 */
async function loadVersions(conn: Kysely<StoreTables>, appends: BatchRequest['appends'], trustNew: boolean): Promise<Map<string, number>> {
  // A stream also written with another expectation in the batch is looked up: that write needs its real version.
  const wanted = new Set<string>();
  for (const append of appends) for (const w of append.writes) if (!trustNew || w.expectedVersion !== 'no_stream') wanted.add(w.streamId);
  const ids = [...wanted];
  const versions = new Map<string, number>();
  const backend = backendOf(conn);
  for (let i = 0; i < ids.length; i += 4096) {
    for (const r of (await conn.executeQuery(versionsQuery(backend, ids.slice(i, i + 4096)))).rows) versions.set(r.stream_id, r.version);
  }
  return versions;
}
