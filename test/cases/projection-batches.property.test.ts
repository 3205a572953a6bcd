import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { compareReadModels } from '../../src/projections/verify.js';
import { migrateStore, openDatabase, type StoredEvent } from '../../src/store/index.js';
import { testEngine, type TestEngine } from '../helpers.js';
import { tx } from '../monitoring/fixtures.js';

/**
 * Law: the case read models (and every other) are the same whatever batches the log is applied in. The cases and
 * summaries projections keep a batch's openings in memory, with the alerts that join them, and write them at the
 * batch's end or before another change of the case: a cut anywhere must give the rows a one-event batch gives.
 */
let t: TestEngine;
let log: StoredEvent[];

const flagged = (reference: string, uniqueId: string) =>
  tx(reference, { transactionData: { amount: 4_800_000 }, anonymizedUserData: { uniqueId, isBanned: true } });

beforeAll(async () => {
  t = await testEngine();
  const e = t.engine;
  const actor = { businessId: 'default' };
  const decide = (reference: string, user: string) => e.monitoring.decide(actor, flagged(reference, user));
  // Bursts for a few subjects (alerts joining a case opened in the same commit), then work on the cases.
  await Promise.all(Array.from({ length: 12 }, (_, i) => decide(`B-${i}`, `u${i % 3}`)));
  const { cases } = await e.cases.list('default', {}, { page: 1, limit: 10 });
  const [first, second, third] = cases;
  await e.cases.update(actor, first!._id, { status: 'in progress', priority: 'low' });
  await e.cases.addComment(actor, second!._id, { text: 'looked at it' });
  await e.cases.addTask(actor, second!._id, 'call the customer');
  await e.cases.closeWithDisposition(actor, third!._id, 'false positive');
  await Promise.all(Array.from({ length: 6 }, (_, i) => decide(`C-${i}`, `u${i % 4}`)));
  await e.cases.open({
    businessId: 'default',
    module: 'cdd',
    record: { id: 'r1', type: 'individual', name: 'R One' },
    title: 'Hit',
    description: 'a hit',
    priority: 'high',
  });
  await e.store.settleDeferred();
  log = await e.store.readAll({ limit: 10_000 });
});
afterAll(async () => t?.close());

it('rebuilding the read models in any cut of the log into batches gives the live ones', async () => {
  const e = t.engine;
  const deferredThrough = await e.projections.deferredPosition(e.db);
  await fc.assert(
    fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 80 }), { minLength: 1, maxLength: 40 }), async (sizes) => {
      const scratch = openDatabase(':memory:');
      try {
        await migrateStore(scratch.db);
        await e.projections.migrate(scratch.db);
        for (let at = 0, i = 0; at < log.length; at += sizes[i++ % sizes.length]!) {
          const batch = log.slice(at, at + sizes[i % sizes.length]!);
          await scratch.db.transaction().execute((trx) => e.projections.applyAll(trx, batch, deferredThrough));
        }
        const { diffs } = await compareReadModels(e.db, scratch.db, e.projections);
        expect(diffs).toEqual([]);
      } finally {
        await scratch.db.destroy();
      }
    }),
    { numRuns: 15, seed: 46 },
  );
});
