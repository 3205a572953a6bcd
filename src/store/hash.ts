import { createHash } from 'node:crypto';
import type { EventsTable } from './schema.js';

export const GENESIS_HASH = '0'.repeat(64);

/**
 * Each event's hash covers every stored field of its row (exactly as stored) and the previous event's hash,
 * so an edit anywhere breaks every later link.
 */
export function rowHash(previous: string, row: Omit<EventsTable, 'hash'>): string {
  return createHash('sha256')
    .update(previous)
    .update(
      JSON.stringify([
        row.global_position,
        row.event_id,
        row.stream_id,
        row.stream_version,
        row.type,
        row.schema_version,
        row.data,
        row.metadata,
        row.recorded_at,
      ]),
    )
    .digest('hex');
}
