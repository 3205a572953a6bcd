import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { freshEvent, rowToEvent } from '../../src/store/rows.js';
import type { EventsTable } from '../../src/store/schema.js';
import { Upcasters } from '../../src/store/upcasters.js';

const rowWith = (data: unknown, position = 7): EventsTable => ({
  global_position: position,
  event_id: `0190c7e2-0000-7000-8000-${String(position).padStart(12, '0')}`,
  stream_id: 'stream-1',
  stream_version: 3,
  type: 'ThingHappened',
  schema_version: 1,
  data: JSON.stringify(data),
  metadata: JSON.stringify({ businessId: 'b1', actor: 'test' }),
  recorded_at: '2026-03-01T10:00:00.000Z',
  hash: 'f'.repeat(64),
  partition: null,
});

describe('stored events built from rows', () => {
  it('a fresh event reads exactly what a later read of the same row returns', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (data) => {
        const row = rowWith(data);
        const fresh = freshEvent(row, row.data, { businessId: 'b1', actor: 'test' });
        const read = rowToEvent(row, new Upcasters());
        const fields = (e: typeof fresh) => [
          e.position,
          e.eventId,
          e.streamId,
          e.streamVersion,
          e.type,
          e.schemaVersion,
          e.metadata,
          e.recordedAt,
          e.hash,
        ];
        expect(fields(fresh)).toEqual(fields(read));
        expect(fresh.data).toEqual(read.data);
        expect(fresh.data).toEqual(JSON.parse(row.data));
      }),
    );
  });

  it('parses a fresh event’s data once, on first read', () => {
    const row = rowWith({ amount: '10.50', tags: ['a'] });
    const fresh = freshEvent(row, row.data, { businessId: 'b1', actor: 'test' });
    const first = fresh.data;
    expect(first).toEqual({ amount: '10.50', tags: ['a'] });
    expect(fresh.data).toBe(first);
    expect(fresh).toMatchObject({ position: 7, data: { amount: '10.50' } });
  });

  it('reads upcast old rows to the current schema version', () => {
    const upcasters = new Upcasters().register('ThingHappened', 1, (d: { name: string }) => ({ fullName: d.name }));
    const read = rowToEvent(rowWith({ name: 'Ada Obi' }), upcasters);
    expect(read).toMatchObject({ schemaVersion: 2, data: { fullName: 'Ada Obi' } });
  });
});
