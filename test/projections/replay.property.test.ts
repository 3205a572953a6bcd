import fc from 'fast-check';
import { expect, it } from 'vitest';
import type { Engine } from '../../src/engine.js';
import { verifyReplay } from '../../src/projections/index.js';
import { testEngine } from '../helpers.js';

/**
 * Law: whatever sequence of domain commands ran, rebuilding every read model from the log gives exactly the
 * live read models. Each domain adds its commands to this list.
 */
type Step = (engine: Engine, businesses: string[]) => Promise<unknown>;

const name = fc.stringMatching(/^[A-Za-z][a-z]{1,8}$/);
const pick = fc.nat({ max: 3 });

const steps: fc.Arbitrary<Step>[] = [
  fc.record({ first: name, last: name, b: pick }).map(({ first, last, b }) => async (e: Engine, biz: string[]) =>
    e.users.create({ businessId: biz[b % biz.length]! }, { firstName: first, lastName: last, email: `${first}.${last}@x.example`, role: 'analyst' }),
  ),
  fc.record({ n: name, b: pick }).map(({ n, b }) => async (e: Engine, biz: string[]) => e.auth.issue({ name: n, businessId: biz[b % biz.length] })),
  pick.map((k) => async (e: Engine) => {
    const keys = await e.auth.list();
    if (keys.length > 0) await e.auth.revoke(keys[k % keys.length]!.apiKey);
  }),
  pick.map((b) => async (e: Engine, biz: string[]) => e.auth.rotateWebhookSecret(biz[b % biz.length]!)),
];

it('rebuilding read models from the log equals the live read models', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.oneof(...steps), { minLength: 1, maxLength: 25 }), async (sequence) => {
      const t = await testEngine();
      try {
        const businesses = ['biz-a', 'biz-b', 'biz-c'];
        for (const step of sequence) await step(t.engine, businesses).catch((err: Error) => expect(err.name).toMatch(/Conflict|NotFound/));
        const report = await verifyReplay(t.engine.db, t.engine.store, t.engine.projections);
        expect(report.diffs).toEqual([]);
        expect(report.ok).toBe(true);
      } finally {
        await t.close();
      }
    }),
    { numRuns: 25 },
  );
});
