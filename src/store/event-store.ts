import { sql, type Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import { insertEvents, planAll, type Head, type Outcome, type Pending, type Planned, type StreamWrite } from './batch.js';
import { GENESIS_HASH, rowHash } from './hash.js';
import { rowToEvent } from './rows.js';
import type { EventsTable, StoreTables } from './schema.js';
import type { AppendOptions, AppendResult, EventMetadata, NewEvent, StoredEvent } from './types.js';
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

export type { StreamWrite };

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
    const row = await this.#db
      .selectFrom('events')
      .select((eb) => eb.fn.max('stream_version').as('version'))
      .where('stream_id', '=', streamId)
      .executeTakeFirst();
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
    const planned = planAll(batch, head, new Map(versions), recordedAt, this.upcasters);
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
      const [plan] = planAll([pending], head, versions, recordedAt, this.upcasters);
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

  async #persist(conn: Kysely<StoreTables>, rows: readonly EventsTable[], events: readonly StoredEvent[]): Promise<void> {
    if (rows.length === 0) return;
    // SQLite caps bound parameters per statement; 10 columns x 500 rows stays well inside it.
    for (let i = 0; i < rows.length; i += 500) await conn.executeQuery(insertEvents(rows.slice(i, i + 500)));
    await this.#projector?.apply(conn, events);
  }

  async #loadVersions(conn: Kysely<StoreTables>, batch: readonly Pending[]): Promise<Map<string, number>> {
    const ids = [...new Set(batch.flatMap((p) => p.writes.map((w) => w.streamId)))];
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
