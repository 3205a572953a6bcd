import { createHash } from 'node:crypto';

export const GENESIS_HASH = '0'.repeat(64);

/** The fields of a row that the chain covers, exactly as they are stored. */
export interface HashedFields {
  position: number;
  eventId: string;
  streamId: string;
  streamVersion: number;
  type: string;
  schemaVersion: number;
  data: string;
  metadata: string;
  recordedAt: string;
}

/** Each event's hash covers its own stored fields and the previous event's hash, so any edit breaks every later link. */
export function chainHash(previous: string, f: HashedFields): string {
  return createHash('sha256')
    .update(previous)
    .update(
      JSON.stringify([
        f.position,
        f.eventId,
        f.streamId,
        f.streamVersion,
        f.type,
        f.schemaVersion,
        f.data,
        f.metadata,
        f.recordedAt,
      ]),
    )
    .digest('hex');
}
