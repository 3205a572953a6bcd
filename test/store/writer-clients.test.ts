// Several stores on one writer thread (the deciding threads' and the engine's): their commits are shared, and each
// store is told every row exactly once, in order, its own and the others'.
import { afterEach, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { BusyError } from '../../src/errors.js';
import {
  EventStore,
  migrateStore,
  openDatabase,
  StaleControlError,
  type StoredEvent,
  ThreadWriter,
  WriterPort,
} from '../../src/store/index.js';
import { decodeError, encodeError } from '../../src/store/wire-errors.js';
import { tempDir } from '../helpers.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

/** A store on the writer thread itself and `ports` stores on ports of it, each on a connection of its own. */
async function storesOnOneWriter(ports: number, controlTypes?: string[]) {
  const dir = tempDir();
  const path = `${dir.path}/events.db`;
  const main = openDatabase(path);
  await migrateStore(main.db);
  const writer = await ThreadWriter.start({ path, controlTypes });
  const types = controlTypes && new Set(controlTypes);
  const stores = [new EventStore(main.db, systemClock, { writer, controlTypes: types })];
  const dbs = [main.db];
  for (let i = 0; i < ports; i++) {
    const { db } = openDatabase(path);
    dbs.push(db);
    stores.push(
      new EventStore(db, systemClock, { writer: new WriterPort(writer.connect(), controlTypes !== undefined), controlTypes: types }),
    );
  }
  for (const store of stores) await store.init();
  cleanup = async () => {
    for (const store of stores.slice(1)) await store.close();
    await stores[0]!.close();
    for (const db of dbs) await db.destroy();
    dir.remove();
  };
  return stores;
}

it('tells every store every position once and in order, while their batches share commits', async () => {
  const stores = await storesOnOneWriter(2);
  const seen = stores.map(() => [] as number[]);
  stores.forEach((store, i) => {
    store.subscribe((events: readonly StoredEvent[]) => seen[i]!.push(...events.map((e) => e.position)));
  });
  // Bursts from all three stores in the same ticks, several rounds, some appends in flight while others queue.
  for (let round = 0; round < 20; round++) {
    await Promise.all(
      stores.flatMap((store, s) =>
        Array.from({ length: 1 + ((round + s) % 5) }, (_, j) =>
          store.append(`s${s}-r${round}-${j}`, [{ type: 'Tick', data: { s, round, j } }], { metadata: { businessId: 'b' } }),
        ),
      ),
    );
  }
  for (const store of stores) await store.catchUp();
  const head = await stores[0]!.head();
  const all = Array.from({ length: head }, (_, i) => i + 1);
  for (const positions of seen) expect(positions).toEqual(all);
  expect((await stores[0]!.verifyChain()).ok).toBe(true);
});

it("refuses a store's append made before another store's control event, after telling it of the event", async () => {
  const [engine, deciding] = await storesOnOneWriter(1, ['Listed']);
  const before = deciding!.notifiedPosition;
  await engine!.append('list-b', [{ type: 'Listed', data: {} }], { metadata: { businessId: 'b' } });
  const told: string[] = [];
  deciding!.subscribe((events) => told.push(...events.map((e) => e.type)));
  await expect(
    deciding!.appendMany([{ streamId: 'd-1', events: [{ type: 'Decided', data: {} }] }], { businessId: 'b' }, before),
  ).rejects.toBeInstanceOf(StaleControlError);
  expect(told).toEqual(['Listed']);
  // Made from the state that has the event, it commits; another business was never fenced.
  await deciding!.appendMany(
    [{ streamId: 'd-1', events: [{ type: 'Decided', data: {} }] }],
    { businessId: 'b' },
    deciding!.notifiedPosition,
  );
  await deciding!.appendMany([{ streamId: 'd-2', events: [{ type: 'Decided', data: {} }] }], { businessId: 'c' }, before);
});

it('carries a StaleControlError and a BusyError across threads with their fields', () => {
  const roundTrip = (error: unknown) => decodeError(structuredClone(encodeError(error)));
  const stale = roundTrip(new StaleControlError('b', 4, 7));
  expect(stale).toBeInstanceOf(StaleControlError);
  expect(stale).toMatchObject({ key: 'b', after: 4, changedAt: 7 });
  const busy = roundTrip(new BusyError('lists changing', 3));
  expect(busy).toBeInstanceOf(BusyError);
  expect(busy).toMatchObject({ message: 'lists changing', retryAfterSeconds: 3 });
});
