import { CompiledQuery, type Kysely } from 'kysely';
import { compiledOnce, type EventStore, type InlineProjector, type StoredEvent } from '../store/index.js';
import type { Projection } from './types.js';

/**
 * Holds the projections, applies them inline inside each append's transaction, keeps a checkpoint per
 * projection in the same transaction, and rebuilds them from the log.
 */
export class ProjectionRegistry implements InlineProjector {
  readonly #projections: Projection[] = [];
  readonly #byType = new Map<string, Projection[]>();
  /** The checkpoint upsert of apply() for the projections registered so far, compiled once: it runs on every commit. */
  #checkpointText = this.#compileCheckpoint();

  constructor(projections: readonly Projection[] = []) {
    for (const p of projections) this.register(p);
  }

  register(projection: Projection): this {
    if (this.#projections.some((p) => p.name === projection.name)) {
      throw new Error(`projection ${projection.name} is registered twice`);
    }
    this.#projections.push(projection);
    this.#checkpointText = this.#compileCheckpoint();
    for (const type of projection.handles) {
      const list = this.#byType.get(type) ?? [];
      list.push(projection);
      this.#byType.set(type, list);
    }
    return this;
  }

  get all(): readonly Projection[] {
    return this.#projections;
  }

  async migrate(db: Kysely<any>): Promise<void> {
    for (const p of this.#projections) await p.migrate(db);
  }

  async apply(db: Kysely<any>, events: readonly StoredEvent[]): Promise<void> {
    if (events.length === 0) return;
    for (const event of events) {
      for (const p of this.#byType.get(event.type) ?? []) await p.apply(db, event);
    }
    const position = events[events.length - 1]!.position;
    await db.executeQuery(
      CompiledQuery.raw(
        this.#checkpointText(db),
        this.#projections.flatMap((p) => [p.name, position]),
      ),
    );
  }

  #compileCheckpoint(): (db: Kysely<any>) => string {
    return compiledOnce(
      (db) =>
        db
          .insertInto('projection_checkpoints')
          .values(this.#projections.map((p) => ({ name: p.name, position: 0 })))
          .onConflict((oc) => oc.column('name').doUpdateSet((eb) => ({ position: eb.ref('excluded.position') })))
          .compile().sql,
    );
  }

  /**
   * Brings every projection up to the head of the log: a projection added after events were written, or one
   * whose checkpoint lags, replays what it missed. Runs in one transaction per page, checkpoint included.
   */
  async catchUp(db: Kysely<any>, store: EventStore): Promise<void> {
    // Up to the head as it stands before the checkpoints are read: every event up to it committed with its inline
    // projection and checkpoint, so the checkpoints read next cover it. Later events are being projected by the nodes
    // appending them; applying them here as well would apply them twice.
    const head = await store.head();
    const rows = (await db.selectFrom('projection_checkpoints').selectAll().execute()) as { name: string; position: number }[];
    const checkpoints = new Map(rows.map((r) => [r.name, r.position]));
    const behind = (p: Projection, position: number) => (checkpoints.get(p.name) ?? 0) < position;
    let after = Math.min(...this.#projections.map((p) => checkpoints.get(p.name) ?? 0));
    while (after < head) {
      const page = (await store.readAll({ after, limit: 2000 })).filter((e) => e.position <= head);
      if (page.length === 0) return;
      const last = page[page.length - 1]!.position;
      await db.transaction().execute(async (trx) => {
        for (const event of page) {
          for (const p of this.#byType.get(event.type) ?? []) if (behind(p, event.position)) await p.apply(trx, event);
        }
        await trx
          .insertInto('projection_checkpoints')
          .values(this.#projections.map((p) => ({ name: p.name, position: Math.max(last, checkpoints.get(p.name) ?? 0) })))
          .onConflict((oc) => oc.column('name').doUpdateSet((eb) => ({ position: eb.ref('excluded.position') })))
          .execute();
      });
      after = last;
    }
  }

  /** Empties every read-model table and replays the whole log into them. */
  async rebuild(db: Kysely<any>, store: EventStore): Promise<void> {
    await db.transaction().execute(async (trx) => {
      for (const p of this.#projections) for (const t of p.tables) await trx.deleteFrom(t.name).execute();
      await trx.deleteFrom('projection_checkpoints').execute();
    });
    await this.catchUp(db, store);
  }
}
