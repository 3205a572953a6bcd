import type { RowHeader } from './batch.js';
import type { EventsTable, TailRow } from './schema.js';
import type { EventMetadata, StoredEvent } from './types.js';
import type { Upcasters } from './upcasters.js';

// Rows and their headers are built field by field: on Node 20's V8 a rest or spread copy that adds or drops
// properties costs ~1.5 µs, and these run once per event appended.

/** What the writer sends back of a row: everything but the texts the caller already holds. */
export function headerOf(row: EventsTable): RowHeader {
  return {
    global_position: row.global_position,
    event_id: row.event_id,
    stream_id: row.stream_id,
    stream_version: row.stream_version,
    type: row.type,
    schema_version: row.schema_version,
    recorded_at: row.recorded_at,
    hash: row.hash,
    partition: row.partition,
  };
}

export function rowToEvent(row: EventsTable, upcasters: Upcasters): StoredEvent {
  // At its type's current version the schema version stays as stored, so the data can wait for its first read, as a
  // fresh event's does: a reader that skips most events (another node's partitions) never parses them.
  if (row.schema_version === upcasters.currentVersion(row.type))
    return new LoggedEvent(row, row.schema_version, JSON.parse(row.metadata) as EventMetadata, row.data, undefined, upcasters);
  const { data, schemaVersion } = upcasters.upcast(row.type, row.schema_version, JSON.parse(row.data));
  return new LoggedEvent(row, schemaVersion, JSON.parse(row.metadata) as EventMetadata, undefined, data, undefined);
}

/** A row of the catch-up (reads.ts readTail): whole, or of a partition the node does not read whole, its header alone. */
export function tailRowToEvent(row: TailRow, upcasters: Upcasters): StoredEvent {
  if (row.data === null || row.metadata === null) {
    // Its metadata as far as the row tells it: whose decision, and of which partition.
    const metadata: EventMetadata = { businessId: row.business_id!, partition: row.partition! };
    return new LoggedEvent(row, row.schema_version, metadata, undefined, NOT_READ, undefined);
  }
  return rowToEvent(row as EventsTable, upcasters);
}

/** Whether the event is a header read without its data (tailRowToEvent): reading its `data` throws. */
export const isHeaderOnly = (event: StoredEvent): boolean => event instanceof LoggedEvent && event.headerOnly;

/** The data of a row read as its header alone. */
const NOT_READ: unique symbol = Symbol('not read');

/**
 * An event just written, as subscribers and callers get it: the row's header and the data's stored text. Its data
 * is parsed from that text only when read (most consumers never read most events' data), so it is exactly what a
 * later read of the log returns. New events are at their type's current schema version, so no upcaster applies,
 * but a type stored encoded is decoded by `upcasters` when its data is read.
 */
export function freshEvent(header: RowHeader, text: string, metadata: EventMetadata, upcasters?: Upcasters): StoredEvent {
  return new LoggedEvent(header, header.schema_version, metadata, text, undefined, upcasters);
}

/**
 * `data` is a getter on the prototype, so it is not an own property: spread or serialise an event's fields by
 * name. It was an object literal's getter, a new closure per event: V8 then gave every event a hidden class of
 * its own, allocated in old space, and those dead hidden classes kept each event's closure, row and text alive
 * through the young-generation collections until the next full one (2.9 KB per append promoted at 2,000/s).
 */
class LoggedEvent implements StoredEvent {
  readonly position: number;
  readonly eventId: string;
  readonly streamId: string;
  readonly streamVersion: number;
  readonly type: string;
  readonly schemaVersion: number;
  readonly metadata: EventMetadata;
  readonly recordedAt: string;
  readonly hash: string;
  /** The stored text until the first read of `data`. */
  #text: string | undefined;
  #data: unknown;
  /** What decodes the stored text when it is first read, if its type is stored encoded. */
  readonly #upcasters: Upcasters | undefined;

  constructor(
    row: RowHeader,
    schemaVersion: number,
    metadata: EventMetadata,
    text: string | undefined,
    data: unknown,
    upcasters: Upcasters | undefined,
  ) {
    this.position = row.global_position;
    this.eventId = row.event_id;
    this.streamId = row.stream_id;
    this.streamVersion = row.stream_version;
    this.type = row.type;
    this.schemaVersion = schemaVersion;
    this.metadata = metadata;
    this.recordedAt = row.recorded_at;
    this.hash = row.hash;
    this.#text = text;
    this.#data = data;
    this.#upcasters = upcasters;
  }

  get headerOnly(): boolean {
    return this.#data === NOT_READ;
  }

  get data(): unknown {
    if (this.#data === NOT_READ)
      throw new Error(`event ${this.position} (${this.type}) was read as its header alone: its partition is not read whole here`);
    if (this.#text !== undefined) {
      const parsed = JSON.parse(this.#text);
      this.#data = this.#upcasters ? this.#upcasters.upcast(this.type, this.schemaVersion, parsed).data : parsed;
      this.#text = undefined;
    }
    return this.#data;
  }
}
