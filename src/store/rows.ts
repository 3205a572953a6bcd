import type { EventsTable } from './schema.js';
import type { EventMetadata, StoredEvent } from './types.js';
import type { Upcasters } from './upcasters.js';

export function rowToEvent(row: EventsTable, upcasters: Upcasters): StoredEvent {
  const { data, schemaVersion } = upcasters.upcast(row.type, row.schema_version, JSON.parse(row.data));
  return eventOf(row, schemaVersion, JSON.parse(row.metadata), () => data);
}

/**
 * An event just written, as subscribers and callers get it. Its data is parsed from the stored text only when
 * read (most consumers never read most events' data), so it is exactly what a later read of the log returns.
 * New events are at their type's current schema version, so no upcaster applies.
 */
export function freshEvent(row: EventsTable, metadata: EventMetadata): StoredEvent {
  let data: unknown;
  let parsed = false;
  return eventOf(row, row.schema_version, metadata, () => {
    if (!parsed) {
      data = JSON.parse(row.data);
      parsed = true;
    }
    return data;
  });
}

function eventOf(row: EventsTable, schemaVersion: number, metadata: EventMetadata, data: () => unknown): StoredEvent {
  return {
    position: row.global_position,
    eventId: row.event_id,
    streamId: row.stream_id,
    streamVersion: row.stream_version,
    type: row.type,
    schemaVersion,
    get data() {
      return data();
    },
    metadata,
    recordedAt: row.recorded_at,
    hash: row.hash,
  };
}
