import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { EventStore, migrateStore, openDatabase } from '../../src/store/index.js';

const meta = { businessId: 'b1', actor: 'test' };

/** A store on an in-memory database, and each batch the writer answered, as the number of events it held. */
async function storeWithInterval(commitIntervalMs: number) {
  const opened = openDatabase(':memory:');
  await migrateStore(opened.db);
  const store = new EventStore(opened.db, new ManualClock('2026-03-01T10:00:00.000Z'), { commitIntervalMs });
  const batches: number[] = [];
  store.setObserver({ committed: (eventCount) => batches.push(eventCount) });
  await store.init();
  return { store, batches, close: () => store.close().then(() => opened.db.destroy()) };
}

const append = (store: EventStore, stream: string) =>
  store.append(stream, [{ type: 'Noted', data: { stream } }], { expectedVersion: 'no_stream', metadata: meta });

/** One append, a second sent while the first is with the writer, and a third once the first has committed. */
async function overlapping(store: EventStore): Promise<void> {
  const first = append(store, 'first');
  await new Promise((resolve) => setImmediate(resolve));
  // The first batch is with the writer: this caller overlaps it, so the load is concurrent.
  const second = append(store, 'second');
  await first;
  // Sent at once, the second would have committed alone by now, and this one after it.
  const third = append(store, 'third');
  await Promise.all([second, third]);
}

describe('the commit interval', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(() => close?.());

  it('never holds a caller that awaits each append before the next: with a minute between commits, five appends still commit at once, alone', async () => {
    const env = await storeWithInterval(60_000);
    close = env.close;
    for (let i = 0; i < 5; i++) await append(env.store, `seq-${i}`);
    expect(env.batches).toEqual([1, 1, 1, 1, 1]);
  });

  it('holds appends that arrive while a batch is in flight, so those of the interval commit together', async () => {
    const env = await storeWithInterval(1_000);
    close = env.close;
    await overlapping(env.store);
    expect(env.batches).toEqual([1, 2]);
  });

  it('sends appends at once with no interval', async () => {
    const env = await storeWithInterval(0);
    close = env.close;
    await overlapping(env.store);
    expect(env.batches.reduce((a, b) => a + b, 0)).toBe(3);
    expect(env.batches.length).toBeGreaterThan(2);
  });
});
