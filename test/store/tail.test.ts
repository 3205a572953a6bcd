import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { type EventStore, isHeaderOnly, migrateStore, type StoredEvent } from '../../src/store/index.js';
import { BACKENDS, skipBackend } from '../postgres.js';
import { storesOnOneLog } from './stores-on-one-log.js';

const decided = (id: string) => [{ streamId: `tx-${id}`, events: [{ type: 'Decided', data: { id, body: 'x'.repeat(100) } }] }];

// Two stores on one log stand for two nodes: one appends, the other reads what it appended through its catch-up.
for (const backend of BACKENDS)
  describe.skipIf(skipBackend(backend))(`the catch-up by partition (${backend})`, () => {
    const { open, connect, firstConnection } = storesOnOneLog(backend);
    const caughtUp = async (store: EventStore) => {
      const seen: StoredEvent[] = [];
      const unsubscribe = store.subscribe((events) => seen.push(...events));
      await store.catchUp();
      unsubscribe();
      return seen;
    };

    it("stores each row's partition, and reads the rows of partitions no reader needs as their headers alone", async () => {
      const a = await open();
      const b = await open();
      b.wholeRows.need('follower', new Set([1]));
      await a.appendMany(decided('held'), { businessId: 'b1', partition: 1, actor: 'api' });
      await a.appendMany(decided('elsewhere'), { businessId: 'b1', partition: 2, actor: 'api' });
      await a.appendMany(decided('none'), { businessId: 'b1', actor: 'api' });
      const columns = await sql<{ partition: number | null }>`select "partition" from events order by global_position`.execute(
        firstConnection().db,
      );
      expect(columns.rows.map((r) => r.partition)).toEqual([1, 2, null]);

      const seen = await caughtUp(b);
      const stored = await b.readAll();
      expect(seen.map((e) => [e.position, e.streamId, e.hash])).toEqual(stored.map((e) => [e.position, e.streamId, e.hash]));
      expect(seen.map(isHeaderOnly)).toEqual([false, true, false]);
      expect(seen[0]!.data).toEqual(stored[0]!.data);
      expect(seen[0]!.metadata).toEqual({ businessId: 'b1', partition: 1, actor: 'api' });
      expect(seen[1]!.metadata).toEqual({ businessId: 'b1', partition: 2 });
      expect(() => seen[1]!.data).toThrow(/event 2 \(Decided\) was read as its header alone/);
      expect(seen[2]!.data).toEqual(stored[2]!.data);
      // The row as stored is whole, and the chain, which the column is not part of, verifies.
      expect(stored[1]!.data).toEqual({ id: 'elsewhere', body: 'x'.repeat(100) });
      expect(await b.verifyChain()).toMatchObject({ ok: true, checked: 3 });
    });

    it('reads every row whole while no reader has said, or one needs every partition', async () => {
      const a = await open();
      const b = await open();
      await a.appendMany(decided('1'), { businessId: 'b1', partition: 2 });
      expect((await caughtUp(b)).map(isHeaderOnly)).toEqual([false]);
      b.wholeRows.need('follower', new Set([1]));
      b.wholeRows.need('shadow', 'every');
      await a.appendMany(decided('2'), { businessId: 'b1', partition: 2 });
      expect((await caughtUp(b)).map(isHeaderOnly)).toEqual([false]);
      b.wholeRows.need('shadow', undefined);
      await a.appendMany(decided('3'), { businessId: 'b1', partition: 2 });
      expect((await caughtUp(b)).map(isHeaderOnly)).toEqual([true]);
      b.wholeRows.need('follower', undefined);
      await a.appendMany(decided('4'), { businessId: 'b1', partition: 2 });
      expect((await caughtUp(b)).map(isHeaderOnly)).toEqual([false]);
    });

    it('catches up while two other stores append, each event once, in log order, with nothing left out', async () => {
      const writers = [await open(), await open()];
      const reader = await open();
      const seen: number[] = [];
      reader.subscribe((events) => seen.push(...events.map((e) => e.position)));
      let appending = true;
      const appended = Promise.all(
        writers.map(async (w, n) => {
          for (let i = 0; i < 40; i++) await w.appendMany(decided(`${n}-${i}`), { businessId: 'b1', partition: i % 4 });
        }),
      ).finally(() => (appending = false));
      // A catch-up reads in one statement, no transaction: each must see a prefix of the log with no gap.
      while (appending) await reader.catchUp();
      await appended;
      await reader.catchUp();
      expect(seen).toEqual(Array.from({ length: 80 }, (_, i) => i + 1));
      expect(reader.notifiedPosition).toBe(80);
    });

    it('adds the column to a log made without it, null in the rows it held', async () => {
      const o = connect();
      await sql`create table events (global_position integer primary key, event_id text not null unique, stream_id text not null,
        stream_version integer not null, type text not null, schema_version integer not null, data text not null,
        metadata text not null, recorded_at text not null, hash text not null)`.execute(o.db);
      await sql`insert into events values (1, 'e1', 's1', 1, 'Old', 1, '{}', '{"businessId":"b1","partition":3}', '2026-03-01T10:00:00.000Z', 'h')`.execute(
        o.db,
      );
      await migrateStore(o.db);
      await migrateStore(o.db);
      const rows = await sql<{ partition: number | null }>`select "partition" from events`.execute(o.db);
      expect(rows.rows).toEqual([{ partition: null }]);
    });
  });
