import type { EventsTable } from './schema.js';
import type { StoredEvent } from './types.js';
import type { Upcasters } from './upcasters.js';

export function rowToEvent(row: EventsTable, upcasters: Upcasters): StoredEvent {
  const { data, schemaVersion } = upcasters.upcast(row.type, row.schema_version, JSON.parse(row.data));
  return {
    position: row.global_position,
    eventId: row.event_id,
    streamId: row.stream_id,
    streamVersion: row.stream_version,
    type: row.type,
    schemaVersion,
    data,
    metadata: JSON.parse(row.metadata),
    recordedAt: row.recorded_at,
    hash: row.hash,
  };
}
