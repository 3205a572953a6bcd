import fc from 'fast-check';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import {
  EventStore,
  ExpectedVersionConflictError,
  migrateStore,
  openLocation,
  ThreadWriter,
  type OpenedLocation,
} from '../../src/store/index.js';
import { createProjector, testProjectorModule } from '../fixtures/test-projector.js';
import { tempDir } from '../helpers.js';
import { createTestDatabase, postgres, type TestDatabase } from '../postgres.js';

const meta = { businessId: 'b1', actor: 'test' };

// The store's contract, on SQLite with either writer and on PostgreSQL (skipped, counted, without a server).
for (const mode of ['inline', 'thread', '[postgres]'] as const)
  describe.skipIf(mode === '[postgres]' && !postgres.available)(`event store (${mode} writer)`, () => {
    let dir: ReturnType<typeof tempDir>;
    let database: TestDatabase | undefined;
    let location: string;
    let opened: OpenedLocation;
    let store: EventStore;
    const onPostgres = mode === '[postgres]';

    async function openStore(options: { projectorModule?: string } = {}): Promise<EventStore> {
      const path = location;
      const writer = mode === 'thread' ? await ThreadWriter.start({ path, ...options }) : undefined;
      const created = new EventStore(opened.db, new ManualClock('2026-03-01T10:00:00.000Z'), { writer });
      await created.init();
      return created;
    }

    /** A thread writer only takes its projector from a module, when it starts: that one needs a new store. */
    async function useTestProjector(): Promise<void> {
      if (mode !== 'thread') return store.setProjector(createProjector());
      await store.close();
      store = await openStore({ projectorModule: testProjectorModule });
    }

    beforeEach(async () => {
      dir = tempDir();
      database = onPostgres ? await createTestDatabase() : undefined;
      location = database?.url ?? `${dir.path}/events.db`;
      opened = openLocation(location);
      await migrateStore(opened.db);
      store = await openStore();
    });
    afterEach(async () => {
      await store.close();
      await opened.db.destroy();
      await database?.drop();
      dir.remove();
    });

    it('appends and reads a stream and the global log in order', async () => {
      await store.append(
        's-1',
        [
          { type: 'A', data: { n: 1 } },
          { type: 'B', data: { n: 2 } },
        ],
        { expectedVersion: 'no_stream', metadata: meta },
      );
      await store.append('s-2', [{ type: 'A', data: { n: 3 } }], { metadata: meta });
      const stream = await store.readStream('s-1');
      expect(stream.map((e) => [e.streamVersion, e.type, e.data])).toEqual([
        [1, 'A', { n: 1 }],
        [2, 'B', { n: 2 }],
      ]);
      const all = await store.readAll();
      expect(all.map((e) => e.position)).toEqual([1, 2, 3]);
      expect(all[0]!.metadata).toEqual(meta);
      expect(all[0]!.recordedAt).toBe('2026-03-01T10:00:00.000Z');
      expect(await store.readAll({ after: 2 })).toHaveLength(1);
    });

    // Law: several types' events, read type by type and merged, come in log order, all of them, for any page size;
    // and what is appended while they are read comes after them.
    it('iterates several types of events in log order, whatever the page size, then those appended meanwhile', async () => {
      let n = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.constantFrom('A', 'B', 'C', 'D'), { maxLength: 30 }),
          fc.subarray(['A', 'B', 'C', 'D'], { minLength: 2 }),
          fc.integer({ min: 1, max: 7 }),
          async (types, read, pageSize) => {
            const after = await store.head();
            if (types.length > 0)
              await store.append(
                `s-${n++}`,
                types.map((type) => ({ type, data: {} })),
                { metadata: meta },
              );
            const expected = (await store.readAll({ after, limit: 1000 })).filter((e) => read.includes(e.type)).map((e) => e.position);
            const seen: number[] = [];
            let appended: number[] = [];
            for await (const e of store.iterateAll({ after, types: read, pageSize })) {
              seen.push(e.position);
              if (seen.length === 1) {
                const { events } = await store.append(`s-${n++}`, [{ type: read[0]!, data: {} }], { metadata: meta });
                appended = events.map((e) => e.position);
              }
            }
            expect(seen).toEqual([...expected, ...appended]);
          },
        ),
        { numRuns: onPostgres ? 10 : 30 },
      );
    });

    it('rejects an append whose expected version is stale, with a typed error', async () => {
      await store.append('s-1', [{ type: 'A', data: {} }], { expectedVersion: 'no_stream', metadata: meta });
      await expect(store.append('s-1', [{ type: 'A', data: {} }], { expectedVersion: 'no_stream', metadata: meta })).rejects.toBeInstanceOf(
        ExpectedVersionConflictError,
      );
      await expect(store.append('s-1', [{ type: 'A', data: {} }], { expectedVersion: 0, metadata: meta })).rejects.toMatchObject({
        actual: 1,
      });
      await store.append('s-1', [{ type: 'A', data: {} }], { expectedVersion: 1, metadata: meta });
      expect(await store.streamVersion('s-1')).toBe(2);
    });

    it('takes stream versions from the log, also in a database migrated from one with a streams table', async () => {
      await store.append(
        's-1',
        [
          { type: 'A', data: {} },
          { type: 'A', data: {} },
        ],
        { expectedVersion: 'no_stream', metadata: meta },
      );
      await sql`create table if not exists streams (stream_id text primary key, version integer not null)`.execute(opened.db);
      await migrateStore(opened.db);
      const tables = onPostgres
        ? await sql`select to_regclass('streams') as name`.execute(opened.db)
        : await sql`select name from sqlite_master where type = 'table' and name = 'streams'`.execute(opened.db);
      expect(tables.rows).toEqual(onPostgres ? [{ name: null }] : []);
      expect(await store.streamVersion('s-1')).toBe(2);
      expect(await store.streamVersion('missing')).toBe(0);
      await expect(store.append('s-1', [{ type: 'A', data: {} }], { expectedVersion: 1, metadata: meta })).rejects.toMatchObject({
        actual: 2,
      });
      expect((await store.append('s-1', [{ type: 'A', data: {} }], { expectedVersion: 2, metadata: meta })).nextVersion).toBe(3);
    });

    it('lets only one of two concurrent appends at the same version win, leaving no gap', async () => {
      const results = await Promise.allSettled([
        store.append('s-1', [{ type: 'A', data: { who: 1 } }], { expectedVersion: 'no_stream', metadata: meta }),
        store.append('s-1', [{ type: 'A', data: { who: 2 } }], { expectedVersion: 'no_stream', metadata: meta }),
        store.append('s-2', [{ type: 'A', data: { who: 3 } }], { expectedVersion: 'no_stream', metadata: meta }),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect((await store.readAll()).map((e) => e.position)).toEqual([1, 2]);
      expect((await store.verifyChain()).ok).toBe(true);
    });

    it("fails alone a new-stream append whose stream was written by an earlier commit, with the stream's version", async () => {
      await store.append(
        's-1',
        [
          { type: 'A', data: {} },
          { type: 'A', data: {} },
        ],
        { expectedVersion: 'no_stream', metadata: meta },
      );
      // One batch: the writer takes 'no_stream' streams as new without looking them up, and s-1 is not.
      const results = await Promise.allSettled([
        store.append('s-2', [{ type: 'A', data: { n: 2 } }], { expectedVersion: 'no_stream', metadata: meta }),
        store.append('s-1', [{ type: 'A', data: { n: 1 } }], { expectedVersion: 'no_stream', metadata: meta }),
        store.append('s-3', [{ type: 'A', data: { n: 3 } }], { expectedVersion: 'no_stream', metadata: meta }),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect((results[1] as PromiseRejectedResult).reason).toMatchObject({
        name: 'ExpectedVersionConflictError',
        streamId: 's-1',
        expected: 'no_stream',
        actual: 2,
      });
      expect((await store.readAll()).map((e) => [e.streamId, e.streamVersion, e.position])).toEqual([
        ['s-1', 1, 1],
        ['s-1', 2, 2],
        ['s-2', 1, 3],
        ['s-3', 1, 4],
      ]);
      expect((await store.verifyChain()).ok).toBe(true);
    });

    it('appends a batch atomically: when an inline projection fails, none of its events is stored', async () => {
      await migrateStore(opened.db);
      await useTestProjector();
      await expect(
        store.appendMany(
          [
            { streamId: 'x', events: [{ type: 'Fine', data: {} }] },
            {
              streamId: 'y',
              events: [
                { type: 'Fine', data: {} },
                { type: 'Boom', data: {} },
              ],
            },
          ],
          meta,
        ),
      ).rejects.toThrow('projection failed');
      const ok = store.append('z', [{ type: 'Fine', data: {} }], { metadata: meta });
      await expect(ok).resolves.toMatchObject({ nextVersion: 1 });
      expect((await store.readAll()).map((e) => e.streamId)).toEqual(['z']);
    });

    it('commits appends of the same tick together (group commit)', async () => {
      const batches: number[] = [];
      store.setObserver({ committed: (_n, appends) => batches.push(appends.length) });
      await Promise.all(Array.from({ length: 50 }, (_, i) => store.append(`s-${i}`, [{ type: 'A', data: { i } }], { metadata: meta })));
      expect(batches).toEqual([50]);
      expect(await store.head()).toBe(50);
    });

    it('commits a burst too long for one batch in several, in call order, and tells subscribers each event once', async () => {
      const other = openLocation(location);
      const otherStore = new EventStore(other.db, new ManualClock());
      await otherStore.init();
      await otherStore.append('ext', [{ type: 'A', data: {} }], { metadata: meta });
      const batches: number[] = [];
      store.setObserver({ committed: (_n, appends) => batches.push(appends.length) });
      const seen: number[] = [];
      store.subscribe((events) => seen.push(...events.map((e) => e.position)));

      const burst = Array.from({ length: 300 }, (_, i) => store.append(`s-${i % 7}`, [{ type: 'A', data: { i } }], { metadata: meta }));
      await Promise.all([...burst, store.catchUp()]);
      await otherStore.append('ext', [{ type: 'A', data: {} }], { metadata: meta });
      await store.catchUp();

      expect(batches.length).toBeGreaterThan(1);
      expect(batches.reduce((a, b) => a + b, 0)).toBe(300);
      expect(seen).toEqual(Array.from({ length: 302 }, (_, i) => i + 1));
      const stream = await store.readStream('s-3');
      expect(stream.map((e) => (e.data as { i: number }).i)).toEqual(Array.from({ length: 43 }, (_, k) => 3 + 7 * k));
      expect((await store.verifyChain()).ok).toBe(true);
      await other.db.destroy();
    });

    it('rejects UPDATE and DELETE on events with database triggers', async () => {
      await store.append('s-1', [{ type: 'A', data: {} }], { metadata: meta });
      await expect(sql`UPDATE events SET type = 'X'`.execute(opened.db)).rejects.toThrow(/append-only: UPDATE rejected/);
      await expect(sql`DELETE FROM events`.execute(opened.db)).rejects.toThrow(/append-only: DELETE rejected/);
      if (onPostgres) await expect(sql`TRUNCATE events`.execute(opened.db)).rejects.toThrow(/append-only: TRUNCATE rejected/);
      expect(await store.head()).toBe(1);
    });

    it('detects a tampered row through the hash chain', async () => {
      for (let i = 0; i < 5; i++) await store.append(`s-${i}`, [{ type: 'Paid', data: { amount: '100.00' } }], { metadata: meta });
      expect(await store.verifyChain()).toMatchObject({ ok: true, checked: 5 });
      // An attacker with file access can drop the trigger; the chain still gives them away.
      await (onPostgres ? sql`DROP TRIGGER events_no_update_delete ON events` : sql`DROP TRIGGER events_no_update`).execute(opened.db);
      await sql`UPDATE events SET data = '{"amount":"1.00"}' WHERE global_position = 3`.execute(opened.db);
      const report = await store.verifyChain();
      expect(report.ok).toBe(false);
      expect(report.problems[0]).toMatchObject({ position: 3 });
    });

    it('upcasts old schema versions on read', async () => {
      await store.append('s-1', [{ type: 'Renamed', data: { fullname: 'Ada Obi' } }], { metadata: meta });
      store.upcasters.register('Renamed', 1, (d: { fullname: string }) => {
        const [firstName, lastName] = d.fullname.split(' ');
        return { firstName, lastName };
      });
      const [event] = await store.readStream('s-1');
      expect(event).toMatchObject({ schemaVersion: 2, data: { firstName: 'Ada', lastName: 'Obi' } });
      await store.append('s-1', [{ type: 'Renamed', data: { firstName: 'B', lastName: 'C' } }], { metadata: meta });
      expect((await store.readStream('s-1'))[1]!.schemaVersion).toBe(2);
    });

    it('tells subscribers about events another process appended', async () => {
      const other = openLocation(location);
      const otherStore = new EventStore(other.db, new ManualClock());
      await otherStore.init();
      const seen: number[] = [];
      store.subscribe((events) => seen.push(...events.map((e) => e.position)));
      await otherStore.append('ext', [{ type: 'A', data: {} }], { metadata: meta });
      await store.append('mine', [{ type: 'A', data: {} }], { metadata: meta });
      await otherStore.append('ext', [{ type: 'A', data: {} }], { metadata: meta });
      await store.catchUp();
      expect(seen).toEqual([1, 2, 3]);
      expect((await store.verifyChain()).ok).toBe(true);
      await other.db.destroy();
    });
  });
