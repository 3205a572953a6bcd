import type { Kysely } from 'kysely';
import { readHead } from '../store/index.js';

/**
 * Whether the read model of projection `name` covers every event of the log, so a reader may trust it without
 * opening the log: false when its checkpoint lags the head (a projection added or rebuilt since the last start),
 * or when the store has no such tables yet. The head is read first: events committed after it come with their
 * inline projections' rows and checkpoints, so a checkpoint at or past it covers all it read.
 */
export async function readModelCurrent(db: Kysely<any>, name: string): Promise<boolean> {
  try {
    const head = await readHead(db);
    const row = await db.selectFrom('projection_checkpoints').select('position').where('name', '=', name).executeTakeFirst();
    return row !== undefined && Number(row.position) >= head.position;
  } catch {
    return false;
  }
}
