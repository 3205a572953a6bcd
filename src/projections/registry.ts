import { CompiledQuery, type Kysely } from 'kysely';
import {
  backendOf,
  compiledOnce,
  type DeferredReply,
  type EventStore,
  type InlineProjector,
  inWriteTransaction,
  readHead,
  rowToEvent,
  type StoredEvent,
  type StoreTables,
  Upcasters,
} from '../store/index.js';
import type { Projection } from './types.js';

/**
 * Holds the projections. Inline ones are applied inside each append's transaction, with their checkpoints; deferred
 * ones in transactions of their own after the commit (applyDeferred). Rebuilds them all from the log.
 */
export class ProjectionRegistry implements InlineProjector {
  readonly #projections: Projection[] = [];
  readonly #inlineByType = new Map<string, Projection[]>();
  readonly #deferredByType = new Map<string, Projection[]>();
  readonly upcasters: Upcasters;
  /** The checkpoint upsert of apply() for the inline projections registered so far, compiled once: it runs on every commit. */
  #checkpointText = this.#compileCheckpoint();

  constructor(projections: readonly Projection[] = [], upcasters = new Upcasters()) {
    this.upcasters = upcasters;
    for (const p of projections) this.register(p);
  }

  register(projection: Projection): this {
    if (this.#projections.some((p) => p.name === projection.name)) {
      throw new Error(`projection ${projection.name} is registered twice`);
    }
    this.#projections.push(projection);
    this.#checkpointText = this.#compileCheckpoint();
    const byType = projection.deferred ? this.#deferredByType : this.#inlineByType;
    for (const type of projection.handles) {
      const list = byType.get(type) ?? [];
      list.push(projection);
      byType.set(type, list);
    }
    return this;
  }

  get all(): readonly Projection[] {
    return this.#projections;
  }

  /** The event types the deferred projections handle (EventStore.keepDeferred). */
  get deferredTypes(): ReadonlySet<string> {
    return new Set(this.#deferredByType.keys());
  }

  async migrate(db: Kysely<any>): Promise<void> {
    for (const p of this.#projections) await p.migrate(db);
  }

  /** The inline projections, inside an append's transaction. */
  async apply(db: Kysely<any>, events: readonly StoredEvent[]): Promise<void> {
    if (events.length === 0) return;
    await applyTo(db, events, this.#inlineByType);
    const position = events[events.length - 1]!.position;
    await db.executeQuery(
      CompiledQuery.raw(
        this.#checkpointText(db),
        this.#inline().flatMap((p) => [p.name, position]),
      ),
    );
  }

  /**
   * Every projection with their checkpoints, the deferred ones up to `deferredThrough`: a replay into a scratch
   * database, to compare with live read models whose deferred ones stand there.
   */
  async applyAll(db: Kysely<any>, events: readonly StoredEvent[], deferredThrough = Number.POSITIVE_INFINITY): Promise<void> {
    if (events.length === 0) return;
    const deferred = events.filter((e) => e.position <= deferredThrough);
    const last = deferred.length > 0 ? deferred[deferred.length - 1]!.position : 0;
    await applyTo(db, deferred, this.#deferredByType);
    await this.apply(db, events);
    if (last > 0) await this.#saveCheckpoints(db, this.#deferred(), last);
  }

  /** Where the deferred projections stand in `db` (the least of their checkpoints); infinite when there are none. */
  async deferredPosition(db: Kysely<any>): Promise<number> {
    const deferred = this.#deferred();
    if (deferred.length === 0) return Number.POSITIVE_INFINITY;
    const at = await this.#deferredCheckpoints(db, false);
    return Math.min(...deferred.map((p) => at.get(p.name) ?? 0));
  }

  /**
   * One page of the deferred projections: up to `limit` events after their checkpoint, applied in a transaction of
   * their own with the checkpoint. On PostgreSQL the checkpoint rows are locked first, so two nodes' passes take
   * turns and never apply an event twice.
   */
  async applyDeferred(db: Kysely<any>, limit: number): Promise<DeferredReply> {
    const deferred = this.#deferred();
    if (deferred.length === 0) return { applied: 0, through: 0, done: true };
    return inWriteTransaction(db, async (conn) => {
      const lock = backendOf(conn) === 'postgres';
      let checkpoints = await this.#deferredCheckpoints(conn, lock);
      if (lock && checkpoints.size < deferred.length) {
        // FOR UPDATE locks only rows that exist: before a projection's first checkpoint two nodes would both start
        // from zero. Insert the missing rows (a concurrent insert of the same row waits for ours), then lock them.
        await conn
          .insertInto('projection_checkpoints')
          .values(deferred.map((p) => ({ name: p.name, position: 0 })))
          .onConflict((oc) => oc.column('name').doNothing())
          .execute();
        checkpoints = await this.#deferredCheckpoints(conn, lock);
      }
      const at = (p: Projection) => checkpoints.get(p.name) ?? 0;
      const after = Math.min(...deferred.map(at));
      const head = (await readHead(conn)).position;
      if (after >= head) return { applied: 0, through: head, done: true };
      const rows = await (conn as Kysely<StoreTables>)
        .selectFrom('events')
        .selectAll()
        .where('global_position', '>', after)
        .where('global_position', '<=', head)
        .where('type', 'in', [...this.#deferredByType.keys()])
        .orderBy('global_position')
        .limit(limit)
        .execute();
      const done = rows.length < limit;
      const through = done ? head : Number(rows[rows.length - 1]!.global_position);
      const events = rows.map((row) => rowToEvent(row, this.upcasters));
      await applyTo(conn, events, this.#deferredByType, (p, event) => at(p) < event.position);
      await this.#saveCheckpoints(conn, deferred, through);
      return { applied: rows.length, through, done };
    });
  }

  /** The deferred projections' checkpoints by name; `lock`: FOR UPDATE, held to the end of the transaction. */
  async #deferredCheckpoints(db: Kysely<any>, lock: boolean): Promise<Map<string, number>> {
    let read = db
      .selectFrom('projection_checkpoints')
      .select(['name', 'position'])
      .where(
        'name',
        'in',
        this.#deferred().map((p) => p.name),
      );
    if (lock) read = read.forUpdate();
    const rows = (await read.execute()) as { name: string; position: number }[];
    return new Map(rows.map((r) => [r.name, Number(r.position)]));
  }

  #inline(): Projection[] {
    return this.#projections.filter((p) => !p.deferred);
  }

  #deferred(): Projection[] {
    return this.#projections.filter((p) => p.deferred);
  }

  async #saveCheckpoints(db: Kysely<any>, projections: readonly Projection[], position: number): Promise<void> {
    if (projections.length === 0) return;
    await db
      .insertInto('projection_checkpoints')
      .values(projections.map((p) => ({ name: p.name, position })))
      .onConflict((oc) => oc.column('name').doUpdateSet((eb) => ({ position: eb.ref('excluded.position') })))
      .execute();
  }

  #compileCheckpoint(): (db: Kysely<any>) => string {
    return compiledOnce(
      (db) =>
        db
          .insertInto('projection_checkpoints')
          .values(this.#inline().map((p) => ({ name: p.name, position: 0 })))
          .onConflict((oc) => oc.column('name').doUpdateSet((eb) => ({ position: eb.ref('excluded.position') })))
          .compile().sql,
    );
  }

  /**
   * Brings every inline projection up to the head of the log: a projection added after events were written, or one
   * whose checkpoint lags, replays what it missed. Runs in one transaction per page, checkpoint included. The
   * deferred ones are brought up by their passes (EventStore.keepDeferred), or by catchUpAll.
   */
  async catchUp(db: Kysely<any>, store: EventStore): Promise<void> {
    const inline = this.#inline();
    if (inline.length === 0) return;
    // Up to the head as it stands before the checkpoints are read: every event up to it committed with its inline
    // projection and checkpoint, so the checkpoints read next cover it. Later events are being projected by the nodes
    // appending them; applying them here as well would apply them twice.
    const head = await store.head();
    const rows = (await db.selectFrom('projection_checkpoints').selectAll().execute()) as { name: string; position: number }[];
    const checkpoints = new Map(rows.map((r) => [r.name, Number(r.position)]));
    const behind = (p: Projection, position: number) => (checkpoints.get(p.name) ?? 0) < position;
    let after = Math.min(...inline.map((p) => checkpoints.get(p.name) ?? 0));
    while (after < head) {
      const page = (await store.readAll({ after, limit: 2000 })).filter((e) => e.position <= head);
      if (page.length === 0) return;
      const last = page[page.length - 1]!.position;
      await db.transaction().execute(async (trx) => {
        await applyTo(trx, page, this.#inlineByType, (p, event) => behind(p, event.position));
        await trx
          .insertInto('projection_checkpoints')
          .values(inline.map((p) => ({ name: p.name, position: Math.max(last, checkpoints.get(p.name) ?? 0) })))
          .onConflict((oc) => oc.column('name').doUpdateSet((eb) => ({ position: eb.ref('excluded.position') })))
          .execute();
      });
      after = last;
    }
  }

  /** catchUp, then the deferred projections' passes up to the head: a tool's rebuild or copy, not a live node. */
  async catchUpAll(db: Kysely<any>, store: EventStore): Promise<void> {
    await this.catchUp(db, store);
    while (!(await this.applyDeferred(db, 2000)).done);
  }

  /** Empties every read-model table and replays the whole log into them. */
  async rebuild(db: Kysely<any>, store: EventStore): Promise<void> {
    await db.transaction().execute(async (trx) => {
      for (const p of this.#projections) for (const t of p.tables) await trx.deleteFrom(t.name).execute();
      await trx.deleteFrom('projection_checkpoints').execute();
    });
    await this.catchUpAll(db, store);
  }
}

/**
 * Applies `events` to the projections of their types, each projection's in log order. A projection with applyMany
 * gets all of its events in one call, after the others: projections write tables of their own, so the order
 * between two projections does not matter.
 */
async function applyTo(
  db: Kysely<any>,
  events: readonly StoredEvent[],
  byType: ReadonlyMap<string, readonly Projection[]>,
  wants: (p: Projection, event: StoredEvent) => boolean = () => true,
): Promise<void> {
  const many = new Map<Projection, StoredEvent[]>();
  for (const event of events)
    for (const p of byType.get(event.type) ?? []) {
      if (!wants(p, event)) continue;
      if (!p.applyMany) await p.apply(db, event);
      else if (many.has(p)) many.get(p)!.push(event);
      else many.set(p, [event]);
    }
  for (const [p, list] of many) await p.applyMany!(db, list);
}
