import { randomUUID } from 'node:crypto';
import { CompiledQuery } from 'kysely';
import { ExpectedVersionConflictError } from './errors.js';
import { rowHash } from './hash.js';
import { freshEvent } from './rows.js';
import type { EventsTable } from './schema.js';
import type { AppendResult, EventMetadata, ExpectedVersion, NewEvent, StoredEvent } from './types.js';
import type { Upcasters } from './upcasters.js';

// Planning a group-commit batch: positions, stream versions, ids and hash links are assigned in memory, in
// queue order, before anything touches the database.

export interface StreamWrite {
  streamId: string;
  events: readonly NewEvent[];
  expectedVersion?: ExpectedVersion;
}

export interface Pending {
  writes: readonly StreamWrite[];
  metadata: EventMetadata;
  enqueuedAt: number;
  resolve(results: AppendResult[]): void;
  reject(error: unknown): void;
}

export interface Head {
  position: number;
  hash: string;
}

export interface Planned {
  pending: Pending;
  results: AppendResult[];
  rows: EventsTable[];
  head: Head;
}

export type Outcome = Planned | { pending: Pending; error: unknown };

/** Assigns positions, versions and hashes in queue order; an append whose expectation fails is left out. */
export function planAll(batch: readonly Pending[], head: Head, versions: Map<string, number>, recordedAt: string, upcasters: Upcasters): Outcome[] {
  const recordedMs = Date.parse(recordedAt);
  const outcomes: Outcome[] = [];
  for (const pending of batch) {
    try {
      const plan = planOne(pending, head, versions, recordedAt, recordedMs, upcasters);
      for (const row of plan.rows) versions.set(row.stream_id, row.stream_version);
      head = plan.head;
      outcomes.push(plan);
    } catch (error) {
      outcomes.push({ pending, error });
    }
  }
  return outcomes;
}

function planOne(pending: Pending, head: Head, versions: ReadonlyMap<string, number>, recordedAt: string, recordedMs: number, upcasters: Upcasters): Planned {
  const metadata = JSON.stringify(pending.metadata);
  const readBack = JSON.parse(metadata) as EventMetadata;
  const rows: EventsTable[] = [];
  const results: AppendResult[] = [];
  const local = new Map<string, number>();
  let { position, hash } = head;
  for (const write of pending.writes) {
    const actual = local.get(write.streamId) ?? versions.get(write.streamId) ?? 0;
    checkExpected(write.streamId, write.expectedVersion ?? 'any', actual);
    const events: StoredEvent[] = [];
    for (let i = 0; i < write.events.length; i++) {
      const event = write.events[i]!;
      position += 1;
      const row: EventsTable = {
        global_position: position,
        event_id: timeOrderedId(recordedMs),
        stream_id: write.streamId,
        stream_version: actual + i + 1,
        type: event.type,
        schema_version: upcasters.currentVersion(event.type),
        data: JSON.stringify(event.data),
        metadata,
        recorded_at: recordedAt,
        hash: '',
      };
      row.hash = hash = rowHash(hash, row);
      rows.push(row);
      events.push(freshEvent(row, readBack));
    }
    local.set(write.streamId, actual + write.events.length);
    results.push({ nextVersion: actual + write.events.length, events });
  }
  return { pending, results, rows, head: { position, hash } };
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
    expected === 'any' ||
    (expected === 'no_stream' && actual === 0) ||
    (expected === 'stream_exists' && actual > 0) ||
    expected === actual;
  if (!ok) throw new ExpectedVersionConflictError(streamId, expected, actual);
}

const EVENT_COLUMNS = ['global_position', 'event_id', 'stream_id', 'stream_version', 'type', 'schema_version', 'data', 'metadata', 'recorded_at', 'hash'] as const;
const insertTexts = new Map<number, string>();

/** A multi-row insert as plain SQL: the query builder's cost grows with the rows, and this runs on every batch. */
export function insertEvents(rows: readonly EventsTable[]): CompiledQuery {
  let text = insertTexts.get(rows.length);
  if (!text) {
    const tuple = `(${EVENT_COLUMNS.map(() => '?').join(', ')})`;
    text = `insert into "events" (${EVENT_COLUMNS.map((c) => `"${c}"`).join(', ')}) values ${Array(rows.length).fill(tuple).join(', ')}`;
    insertTexts.set(rows.length, text);
  }
  const params: unknown[] = [];
  for (const row of rows) for (const c of EVENT_COLUMNS) params.push(row[c]);
  return CompiledQuery.raw(text, params);
}
