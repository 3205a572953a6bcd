import fc from 'fast-check';
import { Decimal } from 'decimal.js';
import { expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { testEngine } from '../helpers.js';
import { tx } from './fixtures.js';

const MIN = 60_000;
const COUNT_10M = 'count(by user over 10 minutes)';
const SUM_1H = 'sum(transactionData.amount by user over 1 hour)';
const DISTINCT_1H = 'distinct(transactionData.receiverAccount by user over 1 hour)';

const step = fc.record({
  user: fc.nat({ max: 2 }),
  receiver: fc.nat({ max: 3 }),
  amount: fc.integer({ min: 1, max: 900_000 }),
  advance: fc.oneof(fc.constantFrom(0, 1, 10 * MIN, 60 * MIN, 10 * MIN - 1), fc.integer({ min: 0, max: 20 * MIN })),
  resubmit: fc.boolean(),
});

/**
 * Law: through decide(), each velocity feature equals a brute-force aggregate over the decisions of the same
 * user in (now - window, now], the current one included; a resubmitted reference never counts twice. One engine
 * serves every run, each run deciding for a business of its own (a business's velocity is its own).
 */
it('velocity features through decide() equal a brute-force aggregate over the history', async () => {
  const clock = new ManualClock('2026-03-01T12:00:00.000Z');
  const t = await testEngine({ clock });
  let run = 0;
  try {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), async (steps) => {
        const business = { businessId: `run_${run++}` };
        const history: { at: number; user: number; amount: number; receiver: number }[] = [];
        let last: Record<string, unknown> | undefined;
        for (const [i, s] of steps.entries()) {
          clock.advance(s.advance);
          if (s.resubmit && last) {
            await t.engine.decide(last, business);
            continue;
          }
          const body = tx(`V-${i}`, {
            transactionData: { amount: s.amount, receiverAccount: `r-${s.receiver}`, senderAccount: `s-${s.user}` },
            anonymizedUserData: { uniqueId: `u-${s.user}` },
            device: { deviceId: `d-${s.user}` },
            limits: { dailyLimit: 1e12, individualTransactionLimit: 1e12 },
          });
          const decision = await t.engine.decide(body, business);
          last = body;
          const now = clock.now().getTime();
          history.push({ at: now, user: s.user, amount: s.amount, receiver: s.receiver });
          const within = (ms: number) => history.filter((h) => h.user === s.user && h.at > now - ms && h.at <= now);
          const { features } = await t.engine.monitoring.getTransaction(business.businessId, decision.transactionId);
          expect(features.velocity[COUNT_10M]).toBe(String(within(10 * MIN).length));
          expect(features.velocity[SUM_1H]).toBe(
            within(60 * MIN)
              .reduce((sum, h) => sum.plus(h.amount), new Decimal(0))
              .toString(),
          );
          expect(features.velocity[DISTINCT_1H]).toBe(String(new Set(within(60 * MIN).map((h) => h.receiver)).size));
        }
      }),
      { numRuns: 15 },
    );
  } finally {
    await t.close();
  }
}, 180_000);
