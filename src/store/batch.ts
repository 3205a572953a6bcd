import { randomUUID } from 'node:crypto';
import type { CompiledQuery } from 'kysely';
import { type Backend, insertRows } from './backend.js';
import type { WriterTiming } from './trace.js';
import { ExpectedVersionConflictError } from './errors.js';
import { rowHash } from './hash.js';
import type { EventsTable, TailRow } from './schema.js';
import type { ExpectedVersion, StreamWrite } from './types.js';
import type { Upcasters } from './upcasters.js';

// Planning a group-commit batch: positions, stream versions, ids and hash links are assigned in memory, in
// queue order, before anything touches the database. The input is already serialised (JSON text), so the
// same plan runs in the caller's thread or in the writer thread.

export interface EncodedEvent {
  type: string;
  schemaVersion: number;
  data: string;
}

export interface EncodedWrite {
  streamId: string;
  expectedVersion: ExpectedVersion;
  events: EncodedEvent[];
}

/** One appendMany call: its writes commit together or not at all. */
export interface EncodedAppend {
  writes: EncodedWrite[];
  metadata: string;
  /**
   * Made from state as of log position `after`: refused (StaleControlError) if a control event of business `key`
   * committed after it (fence.ts), or, with `partition` (the key of a business's partition), an event another
   * process appended for that partition. Set only where the store keeps a fence (several nodes on PostgreSQL).
   */
  fence?: { key: string; after: number; partition?: string };
  /** The metadata's partition, stored in its rows' column. */
  partition?: number;
}

export interface BatchRequest {
  appends: EncodedAppend[];
  recordedAt: string;
  /**
   * The position up to which the caller has seen the log: rows after it that others wrote come back as `external`.
   * With batches in flight it lags; the writer then counts from the head it last reported (serialCommitter).
   */
  after: number;
  /** The node appending, named in the commit's notification so that it can ignore its own. */
  origin?: string;
  /** Report the writer's timestamps with the reply (a trace is on: EventStore.trace). */
  timed?: boolean;
  /**
   * The partitions whose rows `external` carries whole; another partition's row comes as its header
   * (TailRow). Absent: every row whole.
   */
  whole?: readonly number[];
}

/** What the caller does not already hold of a written row. */
export type RowHeader = Omit<EventsTable, 'data' | 'metadata'>;

export type AppendOutcome = { rows: RowHeader[]; nextVersions: number[] } | { error: unknown };

export interface BatchReply {
  /** Rows appended by another process since `after`, in log order, before this batch's rows. */
  external: TailRow[];
  outcomes: AppendOutcome[];
  /** The log's last position once this batch committed: the `after` of the next request. */
  head: number;
  /** This batch was committed in the same transaction as the batch answered just before it. */
  sharedCommit?: boolean;
  /** When the request was `timed`. */
  timing?: WriterTiming;
  /** When the request was `timed` and its transaction wrote: when its BEGIN returned (epochMs), WriterTiming.locked. */
  lockedAt?: number;
}

export interface Head {
  position: number;
  hash: string;
}

export interface Planned {
  rows: EventsTable[];
  nextVersions: number[];
  head: Head;
}

/** One append's writes as the writer takes them, their events' data serialised at the version the store writes. */
export function encodeAppend(
  writes: readonly StreamWrite[],
  metadata: string,
  partition: number | undefined,
  upcasters: Upcasters,
): EncodedAppend {
  return {
    metadata,
    partition,
    writes: writes.map((w) => ({
      streamId: w.streamId,
      expectedVersion: w.expectedVersion ?? 'any',
      events: w.events.map((e) => ({ type: e.type, schemaVersion: upcasters.currentVersion(e.type), data: JSON.stringify(e.data) })),
    })),
  };
}

/** Assigns positions, versions and hashes to one append; throws if a stream is not at the expected version. */
export function planAppend(
  append: EncodedAppend,
  head: Head,
  versions: ReadonlyMap<string, number>,
  recordedAt: string,
  recordedMs: number,
): Planned {
  const rows: EventsTable[] = [];
  const nextVersions: number[] = [];
  const local = new Map<string, number>();
  let { position, hash } = head;
  for (const write of append.writes) {
    const actual = local.get(write.streamId) ?? versions.get(write.streamId) ?? 0;
    checkExpected(write.streamId, write.expectedVersion, actual);
    for (let i = 0; i < write.events.length; i++) {
      const event = write.events[i]!;
      position += 1;
      const row: EventsTable = {
        global_position: position,
        event_id: timeOrderedId(recordedMs),
        stream_id: write.streamId,
        stream_version: actual + i + 1,
        type: event.type,
        schema_version: event.schemaVersion,
        data: event.data,
        metadata: append.metadata,
        recorded_at: recordedAt,
        hash: '',
        partition: append.partition ?? null,
      };
      row.hash = hash = rowHash(hash, row);
      rows.push(row);
    }
    local.set(write.streamId, actual + write.events.length);
    nextVersions.push(actual + write.events.length);
  }
  return { rows, nextVersions, head: { position, hash } };
}

/**
 * A UUIDv7: milliseconds first, then 74 random bits. Time-ordered ids go to the right edge of the unique index
 * instead of a random page, so a batch dirties a few index pages rather than one per event.
 */
function timeOrderedId(ms: number): string {
  const random = randomUUID();
  const t = ms.toString(16).padStart(12, '0');
  return `${t.slice(0, 8)}-${t.slice(8, 12)}-7${random.slice(15, 18)}-${random.slice(19)}`;
}

function checkExpected(streamId: string, expected: ExpectedVersion, actual: number): void {
  const ok =
    expected === 'any' || (expected === 'no_stream' && actual === 0) || (expected === 'stream_exists' && actual > 0) || expected === actual;
  if (!ok) throw new ExpectedVersionConflictError(streamId, expected, actual);
}

const EVENT_COLUMNS = [
  'global_position',
  'event_id',
  'stream_id',
  'stream_version',
  'type',
  'schema_version',
  'data',
  'metadata',
  'recorded_at',
  'hash',
  'partition',
] as const;

/** The rows' multi-row inserts: this runs on every batch. */
export function insertEvents(backend: Backend, rows: readonly EventsTable[]): CompiledQuery[] {
  return insertRows(
    backend,
    'events',
    EVENT_COLUMNS,
    // A row read from a store that predates the partition column (a copy's source) has none.
    rows.map((row) => EVENT_COLUMNS.map((c) => row[c] ?? null)),
  );
}
