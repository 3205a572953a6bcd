import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { ConflictError, ValidationError } from '../../src/errors.js';
import { DEFAULT_PARTITIONS, PartitionService } from '../../src/partitions/index.js';
import { EventStore, migrateStore, openLocation, type OpenedLocation } from '../../src/store/index.js';

describe('a business partition count', () => {
  let opened: OpenedLocation;
  let store: EventStore;
  let partitions: PartitionService;
  beforeEach(async () => {
    opened = openLocation(':memory:');
    await migrateStore(opened.db);
    store = new EventStore(opened.db, new ManualClock('2026-03-01T10:00:00.000Z'));
    await store.init();
    partitions = new PartitionService(store);
  });
  afterEach(async () => {
    await store.close();
    await opened.db.destroy();
  });

  it('is the default until one is recorded, and the recorded one after', async () => {
    expect(await partitions.count('biz_a')).toBe(DEFAULT_PARTITIONS);
    expect(await partitions.fix({ businessId: 'biz_a' }, 16)).toEqual({ count: 16, recorded: true });
    expect(await partitions.count('biz_a')).toBe(16);
    expect(await partitions.count('biz_b')).toBe(DEFAULT_PARTITIONS);
  });

  it('is recorded by the backfill for a business that has none, and left as it is where one is', async () => {
    await partitions.fix({ businessId: 'biz_a' }, 16);
    expect(await partitions.backfill(['biz_a', 'biz_b', 'biz_c'], 8)).toEqual(['biz_b', 'biz_c']);
    expect(await Promise.all(['biz_a', 'biz_b', 'biz_c'].map((b) => partitions.count(b)))).toEqual([16, 8, 8]);
    // Again, at any count: nothing to do.
    expect(await partitions.backfill(['biz_a', 'biz_b', 'biz_c'], 32)).toEqual([]);
    expect(await store.readAll({ types: ['PartitionsFixed'] })).toHaveLength(3);
  });

  it('never changes once recorded: the same count again is a no-op, another is refused naming the field', async () => {
    await partitions.fix({ businessId: 'biz_a' });
    expect(await partitions.fix({ businessId: 'biz_a' }, DEFAULT_PARTITIONS)).toEqual({ count: DEFAULT_PARTITIONS, recorded: false });
    const refused = await partitions.fix({ businessId: 'biz_a' }, 32).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ConflictError);
    expect((refused as Error).message).toBe(
      'partitions: this business was set up with 64 partitions, and a partition count never changes (asked for 32)',
    );
    expect(await partitions.count('biz_a')).toBe(DEFAULT_PARTITIONS);
    expect((await store.readAll({ types: ['PartitionsFixed'] })).map((e) => e.data)).toEqual([{ count: 64 }]);
  });

  it('refuses a count that is not a whole number from 1 to 4096, naming the field', async () => {
    for (const count of [0, 4097, 2.5]) {
      const refused = await partitions.fix({ businessId: 'biz_a' }, count).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(ValidationError);
      expect(refused).toMatchObject({ field: 'partitions' });
    }
    expect(await partitions.count('biz_a')).toBe(DEFAULT_PARTITIONS);
  });
});
