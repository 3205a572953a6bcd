import { afterEach, beforeEach } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { EventStore, migrateStore, openLocation, type OpenedLocation } from '../../src/store/index.js';
import { tempDir } from '../helpers.js';
import { type BACKENDS, createTestDatabase, type TestDatabase } from '../postgres.js';

/**
 * Stores opened on one log, each standing for a node, for the tests of one describe block: a fresh log for each
 * test (a file, or a PostgreSQL database), every store and connection closed after it.
 */
export function storesOnOneLog(backend: (typeof BACKENDS)[number]) {
  let dir: ReturnType<typeof tempDir>;
  let database: TestDatabase | undefined;
  const opened: OpenedLocation[] = [];
  const stores: EventStore[] = [];

  beforeEach(async () => {
    dir = tempDir();
    database = backend === 'sqlite' ? undefined : await createTestDatabase();
  });
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
    for (const o of opened.splice(0)) await o.db.destroy();
    await database?.drop();
    dir.remove();
  });

  /** A connection to the log, not migrated. */
  const connect = (): OpenedLocation => {
    const o = openLocation(database?.url ?? `${dir.path}/events.db`);
    opened.push(o);
    return o;
  };
  const open = async (options?: ConstructorParameters<typeof EventStore>[2]): Promise<EventStore> => {
    const o = connect();
    await migrateStore(o.db);
    const store = new EventStore(o.db, new ManualClock('2026-03-01T10:00:00.000Z'), options);
    await store.init();
    stores.push(store);
    return store;
  };
  return { open, connect, firstConnection: () => opened[0]! };
}
