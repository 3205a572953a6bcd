import { sha256Hex } from '../digest.js';
import type { EventsTable } from './schema.js';

export const GENESIS_HASH = '0'.repeat(64);

/**
 * Each event's hash covers every stored field of its row (exactly as stored) but the partition, a copy of a field
 * of its metadata, and the previous event's hash, so an edit anywhere breaks every later link.
 */
export function rowHash(previous: string, row: Omit<EventsTable, 'hash' | 'partition'>): string {
  // The digest of the concatenation equals that of a Hash updated with each part in turn.
  return sha256Hex(
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
