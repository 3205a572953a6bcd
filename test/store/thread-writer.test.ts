import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  PayloadTooLargeError,
  UnauthorizedError,
  ValidationError,
} from '../../src/errors.js';
import {
  EventStore,
  ExpectedVersionConflictError,
  InlineWriter,
  migrateStore,
  openDatabase,
  ThreadWriter,
  type OpenedDatabase,
} from '../../src/store/index.js';
import { decodeError, encodeError } from '../../src/store/wire-errors.js';
import { testProjectorModule } from '../fixtures/test-projector.js';
import { tempDir } from '../helpers.js';

const meta = { businessId: 'b1', actor: 'test' };

/** A migrated database file and a store whose writer is a thread on it. */
async function threadStore(options: { projectorModule?: string } = {}) {
  const dir = tempDir();
  const path = `${dir.path}/events.db`;
  const opened = openDatabase(path);
  await migrateStore(opened.db);
  const store = new EventStore(opened.db, new ManualClock('2026-03-01T10:00:00.000Z'), {
    writer: await ThreadWriter.start({ path, ...options }),
  });
  await store.init();
  return {
    path,
    opened,
    store,
    async dispose() {
      await store.close();
      await opened.db.destroy();
      dir.remove();
    },
  };
}

describe('thread writer: errors keep their class across the thread', () => {
  // One thread for the group: each test writes its own streams and asserts positions relative to the head.
  let env: Awaited<ReturnType<typeof threadStore>>;
  beforeAll(async () => {
    env = await threadStore({ projectorModule: testProjectorModule });
  });
  afterAll(() => env.dispose());

  it('rejects a stale expected version with an ExpectedVersionConflictError carrying the stream and versions', async () => {
    const { store } = env;
    await store.append('conflict-1', [{ type: 'A', data: {} }], { expectedVersion: 'no_stream', metadata: meta });

    const stale = await store
      .append('conflict-1', [{ type: 'A', data: {} }], { expectedVersion: 'no_stream', metadata: meta })
      .catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(ExpectedVersionConflictError);
    expect(stale).toBeInstanceOf(ConflictError);
    expect(stale).toMatchObject({
      streamId: 'conflict-1',
      expected: 'no_stream',
      actual: 1,
      kind: 'conflict',
      name: 'ExpectedVersionConflictError',
    });
    expect((stale as Error).message).toBe('stream conflict-1 is at version 1, expected no_stream');

    const numeric = await store
      .append('conflict-1', [{ type: 'A', data: {} }], { expectedVersion: 3, metadata: meta })
      .catch((e: unknown) => e);
    expect(numeric).toBeInstanceOf(ExpectedVersionConflictError);
    expect(numeric).toMatchObject({ streamId: 'conflict-1', expected: 3, actual: 1 });
    expect(await store.streamVersion('conflict-1')).toBe(1);
  });

  it('rejects only the append whose projection throws a ValidationError in the thread; its batch neighbours commit', async () => {
    const { store } = env;
    const head = await store.head();
    const batches: number[] = [];
    store.setObserver({ committed: (_n, appends) => batches.push(appends.length) });
    const seen: string[] = [];
    const unsubscribe = store.subscribe((events) => seen.push(...events.map((e) => e.streamId)));

    const [before, invalid, after] = await Promise.allSettled([
      store.append('valid-before', [{ type: 'Fine', data: {} }], { metadata: meta }),
      store.append(
        'invalid',
        [
          { type: 'Fine', data: {} },
          { type: 'Invalid', data: {} },
        ],
        { metadata: meta },
      ),
      store.append('valid-after', [{ type: 'Fine', data: {} }], { metadata: meta }),
    ]);
    unsubscribe();

    // One batch, two of its three appends committed: the failure was isolated, not the batch retried apart.
    expect(batches).toEqual([2]);
    expect(invalid.status).toBe('rejected');
    const error = (invalid as PromiseRejectedResult).reason;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ message: 'invalid event in invalid', field: 'amount', kind: 'validation', name: 'ValidationError' });
    expect(before).toMatchObject({ status: 'fulfilled', value: { nextVersion: 1, events: [{ position: head + 1 }] } });
    expect(after).toMatchObject({ status: 'fulfilled', value: { nextVersion: 1, events: [{ position: head + 2 }] } });

    expect((await store.readAll({ after: head })).map((e) => e.streamId)).toEqual(['valid-before', 'valid-after']);
    expect(seen).toEqual(['valid-before', 'valid-after']);
    expect(await store.streamVersion('invalid')).toBe(0);
    expect((await store.verifyChain()).ok).toBe(true);
  });
});

describe('thread writer: events appended by another connection', () => {
  let env: Awaited<ReturnType<typeof threadStore>>;
  let other: OpenedDatabase;
  beforeEach(async () => {
    env = await threadStore();
    other = openDatabase(env.path);
  });
  afterEach(async () => {
    await other.db.destroy();
    await env.dispose();
  });

  it('delivers them to subscribers exactly once and in order, through catchUp() and through a following append', async () => {
    const { store } = env;
    const otherStore = new EventStore(other.db, new ManualClock());
    await otherStore.init();
    const seen: [number, string][] = [];
    store.subscribe((events) => seen.push(...events.map((e): [number, string] => [e.position, e.streamId])));

    await otherStore.appendMany(
      [
        { streamId: 'ext-1', events: [{ type: 'A', data: {} }] },
        { streamId: 'ext-2', events: [{ type: 'A', data: {} }] },
      ],
      meta,
    );
    await store.catchUp();
    expect(seen).toEqual([
      [1, 'ext-1'],
      [2, 'ext-2'],
    ]);
    await store.catchUp();
    expect(seen).toHaveLength(2);
    expect(store.notifiedPosition).toBe(2);

    // The next local append's batch brings them, before its own event.
    await otherStore.append('ext-3', [{ type: 'A', data: {} }], { metadata: meta });
    await store.append('mine-1', [{ type: 'A', data: {} }], { metadata: meta });
    expect(seen.slice(2)).toEqual([
      [3, 'ext-3'],
      [4, 'mine-1'],
    ]);

    // Two local batches back to back, the second queued once the first was sent, after an external append:
    // the external row comes with the first batch's reply and is told once, before either local event.
    await otherStore.append('ext-4', [{ type: 'A', data: {} }], { metadata: meta });
    const first = store.append('mine-2', [{ type: 'A', data: {} }], { metadata: meta });
    await new Promise((r) => setImmediate(r));
    const second = store.append('mine-3', [{ type: 'A', data: {} }], { metadata: meta });
    await Promise.all([first, second]);
    await store.catchUp();
    await otherStore.append('ext-5', [{ type: 'A', data: {} }], { metadata: meta });
    await store.catchUp();
    await store.catchUp();

    expect(seen.map(([p]) => p)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(seen.slice(4).map(([, s]) => s)).toEqual(['ext-4', 'mine-2', 'mine-3', 'ext-5']);
    expect(store.notifiedPosition).toBe(8);
    expect((await store.verifyChain()).ok).toBe(true);
  });
});

describe('thread writer: after close()', () => {
  it('commits the appends queued before close(), then rejects writes with a clear error instead of hanging', async () => {
    const env = await threadStore();
    const { store } = env;
    try {
      const queued = [1, 2, 3].map((i) => store.append(`s-${i}`, [{ type: 'A', data: {} }], { metadata: meta }));
      await store.close();
      expect((await Promise.all(queued)).map((r) => r.events[0]!.position)).toEqual([1, 2, 3]);

      await expect(store.append('late', [{ type: 'A', data: {} }], { metadata: meta })).rejects.toThrow(/event store is closed/);
      await expect(store.appendMany([{ streamId: 'late', events: [{ type: 'A', data: {} }] }], meta)).rejects.toThrow(
        /event store is closed/,
      );
      await expect(store.catchUp()).rejects.toThrow(/event store is closed/);
      await expect(store.close()).resolves.toBeUndefined();
      expect(await store.head()).toBe(3);
    } finally {
      await env.dispose();
    }
  });
});

describe('wire errors', () => {
  // What crosses the thread is structured-cloned: the round trip goes through that too.
  const roundTrip = (error: unknown) => decodeError(structuredClone(encodeError(error)));

  it('keeps an ExpectedVersionConflictError with its stream, expected and actual versions', () => {
    for (const expected of ['no_stream', 'stream_exists', 'any', 4] as const) {
      const original = new ExpectedVersionConflictError('s-1', expected, 2);
      const decoded = roundTrip(original);
      expect(decoded).toBeInstanceOf(ExpectedVersionConflictError);
      expect(decoded).toBeInstanceOf(ConflictError);
      expect(decoded).toMatchObject({
        name: original.name,
        message: original.message,
        streamId: 's-1',
        expected,
        actual: 2,
        kind: 'conflict',
      });
    }
  });

  it('keeps a ValidationError with its field, and without one', () => {
    const withField = roundTrip(new ValidationError('amount must be positive', 'amount'));
    expect(withField).toBeInstanceOf(ValidationError);
    expect(withField).toMatchObject({ name: 'ValidationError', message: 'amount must be positive', field: 'amount', kind: 'validation' });
    const withoutField = roundTrip(new ValidationError('bad request'));
    expect(withoutField).toBeInstanceOf(ValidationError);
    expect(withoutField).toMatchObject({ message: 'bad request', kind: 'validation' });
    expect((withoutField as ValidationError).field).toBeUndefined();
  });

  it.each([
    ['ConflictError', ConflictError, 'conflict'],
    ['NotFoundError', NotFoundError, 'not_found'],
    ['ForbiddenError', ForbiddenError, 'forbidden'],
    ['PayloadTooLargeError', PayloadTooLargeError, 'too_large'],
    ['UnauthorizedError', UnauthorizedError, 'unauthorized'],
  ] as const)('keeps a %s', (name, ErrorClass, kind) => {
    const decoded = roundTrip(new ErrorClass(`a ${name}`));
    expect(decoded).toBeInstanceOf(ErrorClass);
    expect(decoded).toMatchObject({ name, message: `a ${name}`, kind });
  });

  it('keeps the name, message and code of any other error, and turns a thrown non-error into an Error', () => {
    const sqlite = Object.assign(new Error('database is locked'), { name: 'SqliteError', code: 'SQLITE_BUSY' });
    const decoded = roundTrip(sqlite);
    expect(decoded).toBeInstanceOf(Error);
    expect(decoded).toMatchObject({ name: 'SqliteError', message: 'database is locked', code: 'SQLITE_BUSY' });
    expect(roundTrip(new TypeError('not a function'))).toMatchObject({ name: 'TypeError', message: 'not a function' });
    const thrown = roundTrip('just a string');
    expect(thrown).toBeInstanceOf(Error);
    expect(thrown).toMatchObject({ name: 'Error', message: 'just a string' });
    expect('code' in thrown).toBe(false);
  });
});

// The committer the writer thread runs (serialCommitter), driven in this thread: sent from another thread, three
// messages are not sure to reach the writer's queue before its next turn, so which batches wait together there is
// down to scheduling.
describe("the writer's queue: group commit across batches", () => {
  it('commits the batches that wait for it together in one transaction, answering each with its own outcomes', async () => {
    const dir = tempDir();
    const path = `${dir.path}/events.db`;
    const opened = openDatabase(path);
    await migrateStore(opened.db);
    const writer = new InlineWriter(opened.db, () => undefined);
    const append = (streamId: string, expectedVersion: 'no_stream' | 'any') => ({
      writes: [{ streamId, expectedVersion, events: [{ type: 'A', schemaVersion: 1, data: '{}' }] }],
      metadata: JSON.stringify(meta),
    });
    const request = (appends: ReturnType<typeof append>[]) => ({ appends, recordedAt: '2026-03-01T10:00:00.000Z', after: 0 });
    await writer.write(request([append('taken', 'no_stream')]));
    // Queued in one tick, as batches a store sends while the writer commits wait for it together.
    const replies = await Promise.all([
      writer.write(request([append('a', 'no_stream'), append('b', 'no_stream')])),
      writer.write(request([append('taken', 'no_stream')])),
      writer.write(request([append('c', 'any')])),
    ]);
    expect(replies.map((r) => r.sharedCommit === true)).toEqual([false, true, true]);
    expect(replies.map((r) => r.outcomes.length)).toEqual([2, 1, 1]);
    const positions = (r: (typeof replies)[number]) =>
      r.outcomes.flatMap((o) => ('rows' in o ? o.rows.map((row) => row.global_position) : []));
    expect(replies.map(positions)).toEqual([[2, 3], [], [4]]);
    expect(replies[1]!.outcomes[0]).toMatchObject({ error: expect.any(ExpectedVersionConflictError) });
    expect(replies.map((r) => r.head)).toEqual([4, 4, 4]);
    await writer.close();
    await opened.db.destroy();
    dir.remove();
  });
});
