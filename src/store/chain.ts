import type { Kysely } from 'kysely';
import { GENESIS_HASH, rowHash } from './hash.js';
import type { StoreTables } from './schema.js';

export interface ChainReport {
  ok: boolean;
  checked: number;
  problems: { position: number; message: string }[];
}

/** Recomputes every link of the log's hash chain, page by page, and checks that positions have no gaps. */
export async function verifyChain(db: Kysely<StoreTables>): Promise<ChainReport> {
  const problems: ChainReport['problems'] = [];
  let previous = GENESIS_HASH;
  let expectedPosition = 1;
  let checked = 0;
  let after = 0;
  for (;;) {
    const rows = await db
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
