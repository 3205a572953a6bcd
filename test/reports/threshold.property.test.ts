import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testEngine, type TestEngine } from '../helpers.js';
import { tx } from '../monitoring/fixtures.js';
import { settings } from './fixtures.js';

let t: TestEngine;
beforeAll(async () => {
  t = await testEngine();
}, 180_000);
afterAll(async () => t.close());

const DAYS = ['2026-03-01', '2026-03-02', '2026-03-03'];
/** Amounts on and around both default thresholds, and anywhere below and above. */
const amount = fc.oneof(
  fc.constantFrom(4_999_999, 5_000_000, 5_000_001, 9_999_999, 10_000_000, 10_000_001),
  fc.integer({ min: 0, max: 15_000_000 }),
);
const generated = fc.record({
  amount,
  corporate: fc.boolean(),
  day: fc.constantFrom(...DAYS),
  // 23:30 UTC is the next day in Lagos (UTC+1): the batch is of the business's day.
  time: fc.constantFrom('00:30:00', '12:00:00', '23:30:00'),
  foreign: fc.option(
    fc.record({ currency: fc.constant('USD'), exchangeRate: fc.option(fc.integer({ min: 1000, max: 1600 }), { nil: null }) }),
    { nil: null },
  ),
});

let run = 0;

it('a threshold batch picks exactly the transactions a brute-force filter over the decisions picks', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(generated, { minLength: 1, maxLength: 8 }), fc.constantFrom(...DAYS), async (txs, date) => {
      const businessId = `thr${++run}`;
      const actor = { businessId };
      await t.engine.reports.configure(actor, settings('nfiu'));
      const decided: { id: string; local: number | null; corporate: boolean; day: string }[] = [];
      for (const [i, g] of txs.entries()) {
        const at = new Date(`${g.day}T${g.time}Z`);
        const body = tx(`${businessId}-${i}`, {
          transactionData: {
            amount: g.amount,
            transactionDate: at.toISOString(),
            currency: g.foreign?.currency ?? 'NGN',
            ...(g.foreign?.exchangeRate ? { exchangeRate: g.foreign.exchangeRate } : {}),
          },
          anonymizedUserData: { uniqueId: `u${i}`, accountType: g.corporate ? 'corporate' : 'savings' },
        });
        const { transactionId } = await t.engine.monitoring.decide(actor, body);
        const local = g.foreign ? (g.foreign.exchangeRate === null ? null : g.amount * g.foreign.exchangeRate) : g.amount;
        decided.push({
          id: transactionId,
          local,
          corporate: g.corporate,
          day: new Date(at.getTime() + 3_600_000).toISOString().slice(0, 10),
        });
      }
      const expected = decided
        .filter((d) => d.day === date && d.local !== null && d.local >= (d.corporate ? 10_000_000 : 5_000_000))
        .map((d) => d.id);
      const picked = await t.engine.reports.thresholdTransactions(businessId, date);
      expect(picked.map((p) => p.tx.transactionId)).toEqual(expected);
    }),
    { numRuns: 25 },
  );
}, 300_000);
