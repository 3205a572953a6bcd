import { describe, expect, it } from 'vitest';
import { StaleControlError } from '../../src/store/index.js';
import { BACKENDS, skipBackend } from '../postgres.js';
import { storesOnOneLog } from './stores-on-one-log.js';

const CONTROL = new Set(['ListChanged']);
const listed = (businessId: string) =>
  [[{ streamId: `list-${businessId}`, events: [{ type: 'ListChanged', data: {} }] }], { businessId }] as const;
const decided = (id: string) => [
  { streamId: `tx-${id}`, events: [{ type: 'Decided', data: { id } }], expectedVersion: 'no_stream' as const },
];

// Two stores on one log stand for two nodes; the fence is the inline writer's, on either backend.
for (const backend of BACKENDS)
  describe.skipIf(skipBackend(backend))(`control fence (${backend})`, () => {
    const stores = storesOnOneLog(backend);
    const open = (controlTypes?: ReadonlySet<string>) => stores.open({ controlTypes });

    it("refuses an append made before another node's control change of its business, after telling subscribers of it", async () => {
      const a = await open(CONTROL);
      const b = await open(CONTROL);
      const madeAt = b.notifiedPosition;
      const [change] = await a.appendMany(...listed('b1'));
      const failure = await b.appendMany(decided('1'), { businessId: 'b1' }, madeAt).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(StaleControlError);
      expect(failure).toMatchObject({ key: 'b1', after: madeAt, changedAt: change!.events[0]!.position });
      expect(b.notifiedPosition).toBeGreaterThanOrEqual(change!.events[0]!.position);
      await b.appendMany(decided('1'), { businessId: 'b1' }, b.notifiedPosition);
      expect((await b.readStream('tx-1')).map((e) => e.type)).toEqual(['Decided']);
    });

    it("lets through appends of other businesses, of other types' changes, and those made after the change", async () => {
      const a = await open(CONTROL);
      const b = await open(CONTROL);
      const madeAt = b.notifiedPosition;
      await a.appendMany(...listed('b2'));
      await a.append('other-b1', [{ type: 'NotControl', data: {} }], { metadata: { businessId: 'b1' } });
      await b.appendMany(decided('2'), { businessId: 'b1' }, madeAt);
      await b.appendMany(decided('3'), { businessId: 'b2' });
      expect(await b.streamVersion('tx-2')).toBe(1);
      expect(await b.streamVersion('tx-3')).toBe(1);
    });

    it('orders a change and appends committed together by their place in the batch', async () => {
      const a = await open(CONTROL);
      const madeAt = a.notifiedPosition;
      const results = await Promise.allSettled([
        a.appendMany(decided('before'), { businessId: 'b1' }, madeAt),
        a.appendMany(...listed('b1')),
        a.appendMany(decided('after'), { businessId: 'b1' }, madeAt),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
      expect((results[2] as PromiseRejectedResult).reason).toBeInstanceOf(StaleControlError);
      // Later batches know the change too.
      await expect(a.appendMany(decided('later'), { businessId: 'b1' }, madeAt)).rejects.toBeInstanceOf(StaleControlError);
    });

    it("refuses an append of a partition another node appended for since, and only of that business's partition", async () => {
      const a = await open(CONTROL);
      const b = await open(CONTROL);
      const madeAt = b.notifiedPosition;
      const [moved] = await a.appendMany(decided('a-5'), { businessId: 'b1', partition: 5 });
      // Another partition, the same partition of another business, and an append without one: not fenced.
      await b.appendMany(decided('b-6'), { businessId: 'b1', partition: 6 }, madeAt);
      await b.appendMany(decided('b2-5'), { businessId: 'b2', partition: 5 }, madeAt);
      await b.appendMany(decided('none'), { businessId: 'b1' }, madeAt);
      const failure = await b.appendMany(decided('b-5'), { businessId: 'b1', partition: 5 }, madeAt).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(StaleControlError);
      expect(failure).toMatchObject({ key: 'b1', after: madeAt, changedAt: moved!.events[0]!.position });
      // Made again from the state told of it, it goes through; this node's own appends of the partition fence nothing.
      const retryAt = b.notifiedPosition;
      await b.appendMany(decided('b-5'), { businessId: 'b1', partition: 5 }, retryAt);
      await b.appendMany(decided('b-5-again'), { businessId: 'b1', partition: 5 }, retryAt);
      expect(await b.streamVersion('tx-b-5-again')).toBe(1);
    });

    it('fences no partition the append does not lease: nodes that each decide every partition carry it unfenced', async () => {
      const a = await open(CONTROL);
      const b = await open(CONTROL);
      const madeAt = b.notifiedPosition;
      await a.appendMany(decided('a-7'), { businessId: 'b1', partition: 7 });
      await b.appendMany(decided('b-7'), { businessId: 'b1', partition: 7 }, madeAt, 'business');
      expect(await b.streamVersion('tx-b-7')).toBe(1);
      // The business's control state fences it still.
      await a.appendMany(...listed('b1'));
      const failure = await b
        .appendMany(decided('b-7-late'), { businessId: 'b1', partition: 7 }, madeAt, 'business')
        .catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(StaleControlError);
    });

    it('fences a partition whose rows it reads as their headers alone, by the column and the business the read names', async () => {
      const a = await open(CONTROL);
      const b = await open(CONTROL);
      b.wholeRows.need('follower', new Set([6]));
      const madeAt = b.notifiedPosition;
      const [moved] = await a.appendMany(decided('a-5'), { businessId: 'b1', partition: 5 });
      await b.appendMany(decided('b2-5'), { businessId: 'b2', partition: 5 }, madeAt);
      const failure = await b.appendMany(decided('b-5'), { businessId: 'b1', partition: 5 }, madeAt).catch((e: unknown) => e);
      expect(failure).toMatchObject({ key: 'b1', after: madeAt, changedAt: moved!.events[0]!.position });
    });

    it('fences nothing in a store kept without control types', async () => {
      const a = await open(CONTROL);
      const plain = await open();
      const madeAt = plain.notifiedPosition;
      await a.appendMany(...listed('b1'));
      await plain.appendMany(decided('plain'), { businessId: 'b1' }, madeAt);
      expect(await plain.streamVersion('tx-plain')).toBe(1);
    });
  });
