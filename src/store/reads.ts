import type { Kysely } from 'kysely';
import { rowToEvent } from './rows.js';
import type { StoreTables } from './schema.js';
import type { StoredEvent } from './types.js';
import type { Upcasters } from './upcasters.js';

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
