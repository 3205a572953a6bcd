import { CompiledQuery, type Kysely } from 'kysely';
import { backendOf, placeholdersFor } from './backend.js';
import { rowToEvent } from './rows.js';
import type { StoreTables, TailRow } from './schema.js';
import type { ReadAllOptions, StoredEvent } from './types.js';
import type { Upcasters } from './upcasters.js';

/** A stream's events from `fromVersion` on, in version order. */
export async function readStreamFrom(
  db: Kysely<StoreTables>,
  upcasters: Upcasters,
  streamId: string,
  fromVersion: number,
): Promise<StoredEvent[]> {
  const rows = await db
    .selectFrom('events')
    .selectAll()
    .where('stream_id', '=', streamId)
    .where('stream_version', '>=', fromVersion)
    .orderBy('stream_version')
    .execute();
  return rows.map((r) => rowToEvent(r, upcasters));
}

/** Up to `limit` events (default 1,000) after `after`, of `types` where given, in log order. */
export async function readAfter(db: Kysely<StoreTables>, upcasters: Upcasters, options: ReadAllOptions): Promise<StoredEvent[]> {
  let query = db
    .selectFrom('events')
    .selectAll()
    .where('global_position', '>', options.after ?? 0)
    .orderBy('global_position')
    .limit(options.limit ?? 1000);
  if (options.types) query = query.where('type', 'in', [...options.types]);
  return (await query.execute()).map((r) => rowToEvent(r, upcasters));
}

/** A stream's current version: the highest in the (stream_id, stream_version) index, 0 for none. */
export async function streamVersionOf(db: Kysely<StoreTables>, streamId: string): Promise<number> {
  const row = await db
    .selectFrom('events')
    .select((eb) => eb.fn.max('stream_version').as('version'))
    .where('stream_id', '=', streamId)
    .executeTakeFirst();
  return row?.version ?? 0;
}

/** SQLite binds at most 32,766 parameters to a statement; pages of this many ids stay far below that. */
const IDS_PER_QUERY = 500;

/**
 * The events whose `column` is one of `ids`, in log order, a page of ids a query. With `column` 'stream_id', only
 * each stream's first event.
 */
export async function readByIds(
  db: Kysely<StoreTables>,
  upcasters: Upcasters,
  column: 'global_position' | 'stream_id',
  ids: readonly (number | string)[],
): Promise<StoredEvent[]> {
  const events: StoredEvent[] = [];
  for (let i = 0; i < ids.length; i += IDS_PER_QUERY) {
    let query = db
      .selectFrom('events')
      .selectAll()
      .where(column, 'in', ids.slice(i, i + IDS_PER_QUERY) as never[]);
    if (column === 'stream_id') query = query.where('stream_version', '=', 1);
    for (const r of await query.execute()) events.push(rowToEvent(r, upcasters));
  }
  return events.sort((a, b) => a.position - b.position);
}

/** One type's events after `after` and up to `upTo`, in log order, at most `limit`: a range of the type index. */
export async function typePage(
  db: Kysely<StoreTables>,
  upcasters: Upcasters,
  type: string,
  after: number,
  upTo: number,
  limit: number,
): Promise<StoredEvent[]> {
  const rows = await db
    .selectFrom('events')
    .selectAll()
    .where('type', '=', type)
    .where('global_position', '>', after)
    .where('global_position', '<=', upTo)
    .orderBy('global_position')
    .limit(limit)
    .execute();
  return rows.map((r) => rowToEvent(r, upcasters));
}

/** One type's events after `after`, in log order, at most `limit`. */
export type TypePage = (type: string, after: number, limit: number) => Promise<StoredEvent[]>;

/**
 * Every event of `types` after `after` (up to where `page` reads), in log order: each type's events read in pages
 * by the type index, merged here. One query over several types has the database gather every remaining event of
 * them and sort it for each page, which makes a read of the whole log cost the square of its length.
 */
export async function* mergedTypes(page: TypePage, after: number, types: readonly string[], pageSize: number): AsyncGenerator<StoredEvent> {
  const cursors = types.map((type) => ({ type, after, events: [] as StoredEvent[], more: true }));
  for (;;) {
    for (const c of cursors) {
      if (!c.more || c.events.length > 0) continue;
      c.events = await page(c.type, c.after, pageSize);
      c.more = c.events.length === pageSize;
      if (c.events.length > 0) c.after = c.events[c.events.length - 1]!.position;
    }
    // Every event up to the lowest position a cursor with more to read has reached is in hand.
    const bound = Math.min(...cursors.filter((c) => c.more).map((c) => c.after));
    const batch: StoredEvent[] = [];
    for (const c of cursors) {
      let n = 0;
      while (n < c.events.length && c.events[n]!.position <= bound) batch.push(c.events[n++]!);
      c.events = n === c.events.length ? [] : c.events.slice(n);
    }
    if (batch.length === 0) return;
    yield* batch.sort((a, b) => a.position - b.position);
  }
}

const tailTexts = new Map<string, string>();

/**
 * The rows after `after` and up to `upTo`, in log order, as a catch-up reads them: whole, but for the rows of a
 * partition not in `whole` (when given), of which only the header comes (TailRow): their data and metadata texts,
 * most of a row, never leave the database. Every row of a partition comes with its business, read by the database
 * from its metadata. The partitions go into the statement's text (whole numbers below MAX_PARTITIONS), so each set
 * of them is one statement.
 */
/**
 * Every event after `options.after`, in order, in pages (EventStore.iterateAll): several types up to the head type
 * by type (mergedTypes), then what is appended meanwhile page by page.
 */
export async function* inPages(
  options: Omit<ReadAllOptions, 'limit'> & { pageSize?: number },
  readAll: (options: ReadAllOptions) => Promise<StoredEvent[]>,
  head: () => Promise<number>,
  typePageUpTo: (type: string, after: number, upTo: number, limit: number) => Promise<StoredEvent[]>,
): AsyncGenerator<StoredEvent> {
  let after = options.after ?? 0;
  const { types, pageSize = 2000 } = options;
  if (types && types.length > 1) {
    const upTo = await head();
    yield* mergedTypes((type, from, limit) => typePageUpTo(type, from, upTo, limit), after, types, pageSize);
    after = Math.max(after, upTo);
  }
  for (;;) {
    const page = await readAll({ after, limit: pageSize, types });
    if (page.length === 0) return;
    yield* page;
    after = page[page.length - 1]!.position;
  }
}

export async function readTail(db: Kysely<StoreTables>, after: number, upTo: number, whole?: readonly number[]): Promise<TailRow[]> {
  const backend = backendOf(db);
  const key = `${backend} ${whole?.join(',') ?? '*'}`;
  let text = tailTexts.get(key);
  if (text === undefined) {
    if (whole?.some((p) => !Number.isInteger(p))) throw new RangeError(`partitions are whole numbers, got ${whole.join(', ')}`);
    const read = whole === undefined ? 'true' : `"partition" is null${whole.length > 0 ? ` or "partition" in (${whole.join(', ')})` : ''}`;
    const business = backend === 'postgres' ? `"metadata"::json ->> 'businessId'` : `json_extract("metadata", '$.businessId')`;
    text = placeholdersFor(
      backend,
      `select "global_position", "event_id", "stream_id", "stream_version", "type", "schema_version", "recorded_at", "hash", "partition", ` +
        `case when ${read} then "data" end as "data", case when ${read} then "metadata" end as "metadata", ` +
        `case when "partition" is not null then ${business} end as "business_id" ` +
        `from "events" where "global_position" > ? and "global_position" <= ? order by "global_position"`,
    );
    // A node's held partitions change at moves only; the bound keeps a flapping share from growing the map.
    if (tailTexts.size > 256) tailTexts.clear();
    tailTexts.set(key, text);
  }
  return (await db.executeQuery<TailRow>(CompiledQuery.raw(text, [after, upTo]))).rows;
}
