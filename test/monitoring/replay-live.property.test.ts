import fc from 'fast-check';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { Clock } from '../../src/clock.js';
import { openEngine, tempDir } from '../helpers.js';
import { tx } from './fixtures.js';
import { observable } from './state-view.js';

const MIN = 60_000;

/** Moves on by a millisecond at every reading, so each decision of a burst has a time of its own. */
class TickingClock implements Clock {
  constructor(public ms: number) {}
  now(): Date {
    return new Date(++this.ms);
  }
}

const decision = fc.record({ user: fc.nat(3), receiver: fc.nat(5), amount: fc.integer({ min: 1_000, max: 9_000_000 }) });
const burst = fc.record({ advance: fc.nat(40 * MIN), decisions: fc.array(decision, { minLength: 1, maxLength: 12 }) });

/**
 * Law: the state a replay of the log builds equals the state the live engine built while deciding. Bursts of
 * concurrent decisions make the log's order differ from decision order: a decision that opens a case reaches
 * its append after the approved ones decided just after it.
 */
it('replaying the log rebuilds the state the live engine had, whatever order decisions committed in', { timeout: 120_000 }, async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(burst, { minLength: 1, maxLength: 5 }), async (bursts) => {
      const dir = tempDir();
      const clock = new TickingClock(Date.parse('2026-07-01T08:00:00.000Z'));
      const open = () => openEngine(dir.path, { clock });
      try {
        const live = await open();
        const ids: string[] = [];
        let n = 0;
        for (const { advance, decisions } of bursts) {
          clock.ms += advance;
          const made = await Promise.all(
            decisions.map((d) =>
              live.decide(
                tx(`R-${n++}`, {
                  transactionData: { amount: d.amount, receiverAccount: `r-${d.receiver}`, senderAccount: `s-${d.user}` },
                  anonymizedUserData: { uniqueId: `u-${d.user}` },
                }),
              ),
            ),
          );
          ids.push(...made.map((m) => m.transactionId));
        }
        const now = clock.ms + MIN;
        const expected = observable(live.monitoring.state, now, ids);
        await live.close();
        rmSync(join(dir.path, 'snapshots'), { recursive: true, force: true });
        const replayed = await open();
        try {
          expect(observable(replayed.monitoring.state, now, ids)).toEqual(expected);
        } finally {
          await replayed.close();
        }
      } finally {
        dir.remove();
      }
    }),
    // Found by this property: a decision that opens a case commits after the approved one decided after it.
    {
      numRuns: 10,
      examples: [
        [
          [
            {
              advance: 0,
              decisions: [
                { user: 0, receiver: 0, amount: 400_001 },
                { user: 0, receiver: 0, amount: 1_000 },
              ],
            },
          ],
        ],
      ],
    },
  );
});
