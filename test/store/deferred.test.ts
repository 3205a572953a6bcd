import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { EventStore, migrateStore, openLocation, ThreadWriter, type OpenedLocation } from '../../src/store/index.js';
import { createProjector, DEFERRED_TABLE, testProjectorModule } from '../fixtures/test-projector.js';
import { tempDir } from '../helpers.js';
import { createTestDatabase, postgres, type TestDatabase } from '../postgres.js';

const meta = { businessId: 'b1', actor: 'test' };
const counted = (n: number) => Array.from({ length: n }, (_, i) => ({ type: 'Counted', data: { i } }));

// Deferred read models: applied after the commit in passes of their own, on SQLite with either writer and on PostgreSQL.
for (const mode of ['inline', 'thread', '[postgres]'] as const)
  describe.skipIf(mode === '[postgres]' && !postgres.available)(`deferred read models (${mode} writer)`, () => {
    let dir: ReturnType<typeof tempDir>;
    let database: TestDatabase | undefined;
    let location: string;
    let opened: OpenedLocation;
    const stores: EventStore[] = [];
    const errors: unknown[] = [];

    async function openStore(deferred?: { delayMs?: number; pageSize?: number }): Promise<EventStore> {
      const writer = mode === 'thread' ? await ThreadWriter.start({ path: location, projectorModule: testProjectorModule }) : undefined;
      const store = new EventStore(opened.db, new ManualClock('2026-03-01T10:00:00.000Z'), {
        writer,
        onSubscriberError: (error) => errors.push(error),
      });
      const projector = createProjector();
      if (mode !== 'thread') store.setProjector(projector);
      await store.init();
      if (deferred) store.keepDeferred(projector.deferredTypes, deferred);
      stores.push(store);
      return store;
    }

    const rows = async () =>
      (await opened.db.selectFrom(DEFERRED_TABLE).select(['position', 'stream_id']).orderBy('position').execute()).map((r) =>
        Number(r.position),
      );
    const checkpoint = async () =>
      Number(
        (await opened.db.selectFrom('projection_checkpoints').select('position').where('name', '=', 'deferred-counted').executeTakeFirst())
          ?.position ?? 0,
      );

    beforeEach(async () => {
      dir = tempDir();
      database = mode === '[postgres]' ? await createTestDatabase() : undefined;
      location = database?.url ?? `${dir.path}/events.db`;
      opened = openLocation(location);
      await migrateStore(opened.db);
      await createProjector().migrate(opened.db);
      errors.length = 0;
    });
    afterEach(async () => {
      for (const store of stores.splice(0)) await store.close();
      await opened.db.destroy();
      await database?.drop();
      dir.remove();
    });

    it('applies them after the commit, not inside it, and settle() brings them to what the store has seen', async () => {
      const store = await openStore({ delayMs: 60_000 });
      await store.append('c-1', counted(3), { expectedVersion: 'no_stream', metadata: meta });
      await store.append('other', [{ type: 'Other', data: {} }], { expectedVersion: 'no_stream', metadata: meta });
      expect(await rows()).toEqual([]);
      expect(store.deferredLag).toBe(3);
      await store.settleDeferred();
      expect(await rows()).toEqual([1, 2, 3]);
      // The checkpoint moves to the head the pass read, past events no deferred read model handles.
      expect(await checkpoint()).toBe(4);
      expect(store.deferredLag).toBe(0);
      expect(errors).toEqual([]);
    });

    it('runs a pass by itself shortly after a commit, in pages', async () => {
      const store = await openStore({ delayMs: 10, pageSize: 2 });
      await store.append('c-1', counted(5), { expectedVersion: 'no_stream', metadata: meta });
      await vi.waitFor(async () => expect(await rows()).toEqual([1, 2, 3, 4, 5]), { timeout: 20_000, interval: 20 });
      expect(errors).toEqual([]);
    });

    it('runs no pass by itself while its passes are off, settles all the same, and catches up once they are on', async () => {
      const store = await openStore({ delayMs: 1, pageSize: 2 });
      store.deferredPasses(false);
      await store.append('c-1', counted(3), { expectedVersion: 'no_stream', metadata: meta });
      // Far past the 1 ms delay: a pass would have run.
      await new Promise((r) => setTimeout(r, 300));
      expect(await rows()).toEqual([]);
      expect(store.deferredLag).toBe(3);
      await store.settleDeferred();
      expect(await rows()).toEqual([1, 2, 3]);
      await store.append('c-2', counted(2), { expectedVersion: 'no_stream', metadata: meta });
      store.deferredPasses(true);
      await vi.waitFor(async () => expect(await rows()).toEqual([1, 2, 3, 4, 5]), { timeout: 20_000, interval: 20 });
      expect(await checkpoint()).toBe(5);
      expect(errors).toEqual([]);
    });

    it('brings up what a process that stopped before its pass left behind, once a store keeps them again', async () => {
      const before = await openStore();
      await before.append('c-1', counted(4), { expectedVersion: 'no_stream', metadata: meta });
      await before.close();
      stores.splice(0);
      expect(await rows()).toEqual([]);
      const after = await openStore({ delayMs: 60_000 });
      await after.settleDeferred();
      expect(await rows()).toEqual([1, 2, 3, 4]);
    });

    it.skipIf(mode !== '[postgres]')(
      'applies each event once when two nodes make their first pass at once, before any checkpoint exists',
      async () => {
        const store = await openStore();
        await store.append('c-1', counted(30), { expectedVersion: 'no_stream', metadata: meta });
        // Two nodes' registries over connections of their own, starting their first page together: no checkpoint row
        // exists yet for FOR UPDATE to lock.
        const other = openLocation(location);
        try {
          const replies = await Promise.all([
            createProjector().applyDeferred(opened.db, 100),
            createProjector().applyDeferred(other.db, 100),
          ]);
          expect(replies.map((r) => r.applied).sort()).toEqual([0, 30]);
        } finally {
          await other.db.destroy();
        }
        expect(await rows()).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
      },
    );

    it.skipIf(mode !== '[postgres]')('applies each event once when two nodes run passes over one database at the same time', async () => {
      const a = await openStore({ delayMs: 1, pageSize: 7 });
      const b = await openStore({ delayMs: 1, pageSize: 7 });
      await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          (i % 2 ? a : b).append(`c-${i}`, counted(3), { expectedVersion: 'no_stream', metadata: meta }),
        ),
      );
      await Promise.all([a.catchUp(), b.catchUp()]);
      await Promise.all([a.settleDeferred(), b.settleDeferred()]);
      expect(await rows()).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
      expect(errors).toEqual([]);
    });
  });
