import { type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import { backendOf } from '../store/index.js';
import type { DueHours } from './due.js';
import type { CaseSort } from './read-model.js';

const PRIORITY_RANK = sql<number>`case priority when 'critical' then 0 when 'high' then 1 when 'medium' then 2 else 3 end`;

/** A case's due time in SQL, as ISO text like the stored dates: its own, else its opening plus its priority's hours. */
function dueSql(db: Kysely<any>, hours: DueHours) {
  const h = sql`case priority when 'critical' then ${hours.critical} when 'high' then ${hours.high} when 'medium' then ${hours.medium} else ${hours.low} end`;
  return backendOf(db) === 'postgres'
    ? sql<string>`coalesce(due_date, to_char((created_at::timestamptz + (${h})::float8 * interval '1 hour') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`
    : sql<string>`coalesce(due_date, strftime('%Y-%m-%dT%H:%M:%fZ', created_at, '+' || ${h} || ' hours'))`;
}

/** The cases listing's order for a sort; `due` and `next` take the business's due hours. */
export function orderedBy<Q extends SelectQueryBuilder<any, any, any>>(
  db: Kysely<any>,
  query: Q,
  sort: CaseSort,
  dueHours: DueHours | undefined,
): Q {
  const q = query as SelectQueryBuilder<any, any, any>;
  if ((sort === 'due' || sort === 'next') && !dueHours) throw new Error(`sorting by ${sort} takes the due hours`);
  const due = dueHours && dueSql(db, dueHours);
  switch (sort) {
    case 'oldest':
      return q.orderBy('opened_at_position', 'asc') as Q;
    case 'updated':
      return q.orderBy('updated_at', 'desc').orderBy('opened_at_position', 'desc') as Q;
    case 'priority':
      return q.orderBy(PRIORITY_RANK).orderBy('opened_at_position', 'desc') as Q;
    case 'due':
      return q.orderBy(due!).orderBy('opened_at_position', 'asc') as Q;
    case 'next':
      return q.orderBy(PRIORITY_RANK).orderBy(due!).orderBy('opened_at_position', 'asc') as Q;
    default:
      return q.orderBy('opened_at_position', 'desc') as Q;
  }
}
