import { randomUUID } from 'node:crypto';
import { CompiledQuery, sql, type Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import { ExpectedVersionConflictError } from './errors.js';
import { GENESIS_HASH, rowHash } from './hash.js';
import { rowToEvent } from './rows.js';
import type { EventsTable, StoreTables } from './schema.js';
import type { AppendOptions, AppendResult, EventMetadata, ExpectedVersion, NewEvent, StoredEvent } from './types.js';
import { Upcasters } from './upcasters.js';

/** Runs inside the append's transaction, so read models commit (or roll back) with the events. */
export interface InlineProjector {
  apply(db: Kysely<any>, events: readonly StoredEvent[]): Promise<void>;
}

export interface AppendObserver {
  committed(eventCount: number, appendSeconds: readonly number[]): void;
}

/** Sees every event once, in log order, after it is durable: local appends and other processes' alike. */
export type Subscriber = (events: readonly StoredEvent[]) => void;

export interface StreamWrite {
  streamId: string;
  events: readonly NewEvent[];
  expectedVersion?: ExpectedVersion;
}

interface Pending {
  writes: readonly StreamWrite[];
  metadata: EventMetadata;
  enqueuedAt: number;
  resolve(results: AppendResult[]): void;
  reject(error: unknown): void;
}

interface Head {
  position: number;
  hash: string;
}

interface Planned {
  pending: Pending;
  results: AppendResult[];
  rows: EventsTable[];
  head: Head;
}

type Outcome = Planned | { pending: Pending; error: unknown };

export interface ReadAllOptions {
  /** Exclusive: events after this global position. */
  after?: number;
  limit?: number;
  types?: readonly string[];
}

export interface ChainReport {
  ok: boolean;
  checked: number;
  problems: { position: number; message: string }[];
}

export class EventStore {
  readonly upcasters: Upcasters;
  readonly #db: Kysely<StoreTables>;
  readonly #clock: Clock;
  readonly #subscribers = new Set<Subscriber>();
  #projector: InlineProjector | undefined;
  #observer: AppendObserver | undefined;
  #queue: Pending[] = [];
  #flushScheduled = false;
  /** Serialises flushes and tail reads, so subscribers see each event exactly once and in order. */
  #lock: Promise<void> = Promise.resolve();
  #notified = 0;

  readonly #onSubscriberError: (error: unknown) => void;

  constructor(db: Kysely<any>, clock: Clock, options: { upcasters?: Upcasters; onSubscriberError?: (error: unknown) => void } = {}) {
    this.#db = db;
    this.#clock = clock;
    this.upcasters = options.upcasters ?? new Upcasters();
    this.#onSubscriberError = options.onSubscriberError ?? (() => undefined);
  }

  /** Subscribers attached after this only see events after the current head. */
  async init(): Promise<void> {
    // 64 MB of page cache (default 2 MB): the unique indexes of a long log are written at random places.
    await sql`pragma cache_size = -65536`.execute(this.#db);
    this.#notified = (await this.#readHead(this.#db)).position;
  }

  setProjector(projector: InlineProjector): void {
    this.#projector = projector;
  }

  setObserver(observer: AppendObserver): void {
    this.#observer = observer;
  }

  subscribe(subscriber: Subscriber): () => void {
    this.#subscribers.add(subscriber);
    return () => this.#subscribers.delete(subscriber);
  }

  /** The global position up to which subscribers have been told. */
  get notifiedPosition(): number {
    return this.#notified;
  }

  async append(streamId: string, events: readonly NewEvent[], options: AppendOptions): Promise<AppendResult> {
    const [result] = await this.appendMany([{ streamId, events, expectedVersion: options.expectedVersion }], options.metadata);
    return result!;
  }

  /**
   * Appends to several streams atomically: all writes commit together or none does. Appends arriving in the
   * same tick share one transaction and one fsync (group commit); each keeps its own savepoint, so one
   * append's conflict does not fail its neighbours.
   */
  appendMany(writes: readonly StreamWrite[], metadata: EventMetadata): Promise<AppendResult[]> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ writes, metadata, enqueuedAt: performance.now(), resolve, reject });
      if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(() => void this.#withLock(() => this.#flush()));
      }
    });
  }

  /** Resolves once every append queued so far has committed or failed. */
  async drain(): Promise<void> {
    while (this.#queue.length > 0 || this.#flushScheduled) {
      await this.#withLock(async () => undefined);
      await new Promise((r) => setImmediate(r));
    }
  }

  /** Tells subscribers of events that another process appended (the CLI, a second server). */
  catchUp(): Promise<void> {
    return this.#withLock(async () => {
      const head = await this.#readHead(this.#db);
      if (head.position > this.#notified) this.#notify(await this.#readRange(this.#db, this.#notified, head.position));
    });
  }

  async readStream(streamId: string, fromVersion = 1): Promise<StoredEvent[]> {
    const rows = await this.#db
      .selectFrom('events')
      .selectAll()
      .where('stream_id', '=', streamId)
      .where('stream_version', '>=', fromVersion)
      .orderBy('stream_version')
      .execute();
    return rows.map((r) => rowToEvent(r, this.upcasters));
  }

  async readAll(options: ReadAllOptions = {}): Promise<StoredEvent[]> {
    let query = this.#db
      .selectFrom('events')
      .selectAll()
      .where('global_position', '>', options.after ?? 0)
      .orderBy('global_position')
      .limit(options.limit ?? 1000);
    if (options.types) query = query.where('type', 'in', [...options.types]);
    return (await query.execute()).map((r) => rowToEvent(r, this.upcasters));
  }

  /** Every event after `after`, in order, read in pages so memory stays flat on long logs. */
  async *iterateAll(options: Omit<ReadAllOptions, 'limit'> & { pageSize?: number } = {}): AsyncGenerator<StoredEvent> {
    let after = options.after ?? 0;
    for (;;) {
      const page = await this.readAll({ after, limit: options.pageSize ?? 2000, types: options.types });
      if (page.length === 0) return;
      yield* page;
      after = page[page.length - 1]!.position;
    }
  }

  async streamVersion(streamId: string): Promise<number> {
    const row = await this.#db.selectFrom('streams').select('version').where('stream_id', '=', streamId).executeTakeFirst();
    return row?.version ?? 0;
  }

  async head(): Promise<number> {
    return (await this.#readHead(this.#db)).position;
  }

  /** Recomputes every link of the hash chain and checks that positions have no gaps. */
  async verifyChain(): Promise<ChainReport> {
    const problems: ChainReport['problems'] = [];
    let previous = GENESIS_HASH;
    let expectedPosition = 1;
    let checked = 0;
    let after = 0;
    for (;;) {
      const rows = await this.#db
        .selectFrom('events')
        .selectAll()
        .where('global_position', '>', after)
        .orderBy('global_position')
        .limit(5000)
        .execute();
      if (rows.length === 0) break;
      for (const row of rows) {
        if (row.global_position !== expectedPosition) {
          problems.push({ position: row.global_position, message: `gap: expected position ${expectedPosition}` });
        }
        const recomputed = rowHash(previous, row);
        if (recomputed !== row.hash) {
          problems.push({ position: row.global_position, message: `hash mismatch for event ${row.event_id} (${row.type})` });
        }
        previous = row.hash;
        expectedPosition = row.global_position + 1;
        checked += 1;
      }
      after = rows[rows.length - 1]!.global_position;
    }
    return { ok: problems.length === 0, checked, problems };
  }

  #withLock<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#lock.then(work);
    this.#lock = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  async #flush(): Promise<void> {
    this.#flushScheduled = false;
    const batch = this.#queue;
    this.#queue = [];
    if (batch.length === 0) return;
    let outcomes: Outcome[] = [];
    let external: StoredEvent[] = [];
    try {
      await this.#db.connection().execute(async (conn) => {
        await sql`begin immediate`.execute(conn);
        try {
          const head = await this.#readHead(conn);
          if (head.position > this.#notified) external = await this.#readRange(conn, this.#notified, head.position);
          const versions = await this.#loadVersions(conn, batch);
          outcomes = await this.#writeBatch(conn, batch, head, versions);
          await sql`commit`.execute(conn);
        } catch (error) {
          await sql`rollback`.execute(conn).catch(() => undefined);
          throw error;
        }
      });
    } catch (error) {
      for (const pending of batch) pending.reject(error);
      return;
    }
    this.#afterCommit(external, outcomes);
  }

  #afterCommit(external: StoredEvent[], outcomes: Outcome[]): void {
    if (external.length > 0) this.#notify(external);
    const accepted = outcomes.filter((o): o is Planned => 'rows' in o);
    const committed = accepted.flatMap((o) => o.results.flatMap((r) => r.events));
    if (committed.length > 0) this.#notify(committed);
    const now = performance.now();
    this.#observer?.committed(
      committed.length,
      accepted.map((o) => (now - o.pending.enqueuedAt) / 1000),
    );
    for (const o of outcomes) {
      if ('rows' in o) o.pending.resolve(o.results);
      else o.pending.reject(o.error);
    }
  }

  /**
   * Fast path: the whole batch in one insert, one stream upsert and one projection pass. If any of that fails
   * (a projection rejecting one append's events), fall back to one savepoint per append so that only the
   * faulty append fails and the others still commit.
   */
  async #writeBatch(conn: Kysely<StoreTables>, batch: Pending[], head: Head, versions: Map<string, number>): Promise<Outcome[]> {
    const recordedAt = this.#clock.now().toISOString();
    const planned = this.#planAll(batch, head, new Map(versions), recordedAt);
    const accepted = planned.filter((o): o is Planned => 'rows' in o);
    if (accepted.length === 0) return planned;
    await sql`savepoint batch`.execute(conn);
    try {
      await this.#persist(conn, accepted.flatMap((o) => o.rows), accepted.flatMap((o) => o.results.flatMap((r) => r.events)));
      await sql`release batch`.execute(conn);
      return planned;
    } catch {
      await sql`rollback to batch`.execute(conn);
      await sql`release batch`.execute(conn);
    }
    const outcomes: Outcome[] = [];
    for (const pending of batch) {
      const [plan] = this.#planAll([pending], head, versions, recordedAt);
      if (!plan || !('rows' in plan)) {
        outcomes.push(plan!);
        continue;
      }
      await sql`savepoint append_one`.execute(conn);
      try {
        await this.#persist(conn, plan.rows, plan.results.flatMap((r) => r.events));
        await sql`release append_one`.execute(conn);
        head = plan.head;
        for (const row of plan.rows) versions.set(row.stream_id, row.stream_version);
        outcomes.push(plan);
      } catch (error) {
        await sql`rollback to append_one`.execute(conn);
        await sql`release append_one`.execute(conn);
        outcomes.push({ pending, error });
      }
    }
    return outcomes;
  }

  /** Assigns positions, versions and hashes in queue order; an append whose expectation fails is left out. */
  #planAll(batch: readonly Pending[], head: Head, versions: Map<string, number>, recordedAt: string): Outcome[] {
    const outcomes: Outcome[] = [];
    for (const pending of batch) {
      try {
        const plan = this.#plan(pending, head, versions, recordedAt);
        for (const row of plan.rows) versions.set(row.stream_id, row.stream_version);
        head = plan.head;
        outcomes.push(plan);
      } catch (error) {
        outcomes.push({ pending, error });
      }
    }
    return outcomes;
  }

  #plan(pending: Pending, head: Head, versions: ReadonlyMap<string, number>, recordedAt: string): Planned {
    const recordedMs = Date.parse(recordedAt);
    const metadata = JSON.stringify(pending.metadata);
    const readBack = JSON.parse(metadata) as EventMetadata;
    const rows: EventsTable[] = [];
    const results: AppendResult[] = [];
    const local = new Map<string, number>();
    let { position, hash } = head;
    for (const write of pending.writes) {
      const actual = local.get(write.streamId) ?? versions.get(write.streamId) ?? 0;
      checkExpected(write.streamId, write.expectedVersion ?? 'any', actual);
      const start = rows.length;
      write.events.forEach((event, i) => {
        position += 1;
        const row: EventsTable = {
          global_position: position,
          event_id: timeOrderedId(recordedMs),
          stream_id: write.streamId,
          stream_version: actual + i + 1,
          type: event.type,
          schema_version: this.upcasters.currentVersion(event.type),
          data: JSON.stringify(event.data),
          metadata,
          recorded_at: recordedAt,
          hash: '',
        };
        row.hash = hash = rowHash(hash, row);
        rows.push(row);
      });
      local.set(write.streamId, actual + write.events.length);
      results.push({ nextVersion: actual + write.events.length, events: rows.slice(start).map((r) => freshEvent(r, readBack)) });
    }
    return { pending, results, rows, head: { position, hash } };
  }

  async #persist(conn: Kysely<StoreTables>, rows: readonly EventsTable[], events: readonly StoredEvent[]): Promise<void> {
    if (rows.length === 0) return;
    // SQLite caps bound parameters per statement; 10 columns x 500 rows stays well inside it.
    for (let i = 0; i < rows.length; i += 500) await conn.executeQuery(insertEvents(rows.slice(i, i + 500)));
    const versions = new Map<string, number>();
    for (const r of rows) versions.set(r.stream_id, r.stream_version);
    const streams = [...versions].map(([stream_id, version]) => ({ stream_id, version }));
    for (let i = 0; i < streams.length; i += 5000) {
      await conn
        .insertInto('streams')
        .values(streams.slice(i, i + 5000))
        .onConflict((oc) => oc.column('stream_id').doUpdateSet((eb) => ({ version: eb.ref('excluded.version') })))
        .execute();
    }
    await this.#projector?.apply(conn, events);
  }

  async #loadVersions(conn: Kysely<StoreTables>, batch: readonly Pending[]): Promise<Map<string, number>> {
    const ids = [...new Set(batch.flatMap((p) => p.writes.map((w) => w.streamId)))];
    const versions = new Map<string, number>();
    for (let i = 0; i < ids.length; i += 5000) {
      const rows = await conn.selectFrom('streams').select(['stream_id', 'version']).where('stream_id', 'in', ids.slice(i, i + 5000)).execute();
      for (const r of rows) versions.set(r.stream_id, r.version);
    }
    return versions;
  }

  async #readHead(db: Kysely<StoreTables>): Promise<Head> {
    const row = await db
      .selectFrom('events')
      .select(['global_position', 'hash'])
      .orderBy('global_position', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? { position: row.global_position, hash: row.hash } : { position: 0, hash: GENESIS_HASH };
  }

  async #readRange(db: Kysely<StoreTables>, after: number, upTo: number): Promise<StoredEvent[]> {
    const rows = await db
      .selectFrom('events')
      .selectAll()
      .where('global_position', '>', after)
      .where('global_position', '<=', upTo)
      .orderBy('global_position')
      .execute();
    return rows.map((r) => rowToEvent(r, this.upcasters));
  }

  #notify(events: readonly StoredEvent[]): void {
    this.#notified = events[events.length - 1]!.position;
    // A failing read-side consumer must not fail writes that are already durable.
    for (const subscriber of this.#subscribers) {
      try {
        subscriber(events);
      } catch (error) {
        this.#onSubscriberError(error);
      }
    }
  }
}

/**
 * A UUIDv7: milliseconds first, then 74 random bits. Time-ordered ids go to the right edge of the unique index
 * instead of a random page, so a batch dirties a few index pages rather than one per event.
 */
function timeOrderedId(ms: number): string {
  const random = randomUUID();
  const t = ms.toString(16).padStart(12, '0');
  return `${t.slice(0, 8)}-${t.slice(8, 12)}-7${random.slice(15, 18)}-${random.slice(19)}`;
}

const EVENT_COLUMNS = ['global_position', 'event_id', 'stream_id', 'stream_version', 'type', 'schema_version', 'data', 'metadata', 'recorded_at', 'hash'] as const;
const insertTexts = new Map<number, string>();

/** A multi-row insert as plain SQL: the query builder's cost grows with the rows, and this runs on every batch. */
function insertEvents(rows: readonly EventsTable[]): CompiledQuery {
  let text = insertTexts.get(rows.length);
  if (!text) {
    const tuple = `(${EVENT_COLUMNS.map(() => '?').join(', ')})`;
    text = `insert into "events" (${EVENT_COLUMNS.map((c) => `"${c}"`).join(', ')}) values ${Array(rows.length).fill(tuple).join(', ')}`;
    insertTexts.set(rows.length, text);
  }
  const params: unknown[] = [];
  for (const row of rows) for (const c of EVENT_COLUMNS) params.push(row[c]);
  return CompiledQuery.raw(text, params);
}

/**
 * An event just written, as subscribers and callers get it. Its data is parsed from the stored text only when
 * read (most consumers never read most events' data), so it is exactly what a later read of the log returns.
 * New events are at their type's current schema version, so no upcaster applies.
 */
function freshEvent(row: EventsTable, metadata: EventMetadata): StoredEvent {
  let data: unknown;
  let parsed = false;
  return {
    position: row.global_position,
    eventId: row.event_id,
    streamId: row.stream_id,
    streamVersion: row.stream_version,
    type: row.type,
    schemaVersion: row.schema_version,
    get data() {
      if (!parsed) {
        data = JSON.parse(row.data);
        parsed = true;
      }
      return data;
    },
    metadata,
    recordedAt: row.recorded_at,
    hash: row.hash,
  };
}

function checkExpected(streamId: string, expected: ExpectedVersion, actual: number): void {
  const ok =
    expected === 'any' ||
    (expected === 'no_stream' && actual === 0) ||
    (expected === 'stream_exists' && actual > 0) ||
    expected === actual;
  if (!ok) throw new ExpectedVersionConflictError(streamId, expected, actual);
}
