import { hash } from 'node:crypto';
import type { EventsTable } from './schema.js';

export const GENESIS_HASH = '0'.repeat(64);

/**
 * Each event's hash covers every stored field of its row (exactly as stored) and the previous event's hash,
 * so an edit anywhere breaks every later link.
 */
export function rowHash(previous: string, row: Omit<EventsTable, 'hash'>): string {
  // One-shot hashing of the concatenation: the same digest as updating with each part, without a Hash object.
  return hash(
    'sha256',
    previous +
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
  );
}
