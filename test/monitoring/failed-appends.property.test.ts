import fc from 'fast-check';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import type { Clock } from '../../src/clock.js';
import { MonitoringState } from '../../src/monitoring/state.js';
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

/**
 * A real failing write: SQLite refuses, inside the log's own transaction, every decision whose reference starts
 * with FAIL-, with the message a full disk gives. The engine and its writer thread are the ones in production.
 */
const FAILING_APPENDS = sql`CREATE TRIGGER inject_full_disk BEFORE INSERT ON events
  WHEN NEW.type = 'TransactionDecided' AND json_extract(NEW.metadata, '$.idempotencyKey') LIKE 'FAIL-%'
  BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`;

const decision = fc.record({
  user: fc.nat(2),
  device: fc.nat(2),
  receiver: fc.nat(3),
  amount: fc.integer({ min: 1_000, max: 9_000_000 }),
  fails: fc.boolean(),
});
const burst = fc.record({ advance: fc.nat(20 * MIN), decisions: fc.array(decision, { minLength: 1, maxLength: 10 }) });

/**
 * Law: whatever appends fail, the live state (velocity windows, history, lists) equals the state a replay of the log
 * builds, so a decision that never committed counts in no window and no first-seen pair. One engine serves every
 * run, each run deciding for a business of its own.
 */
it('appends that fail leave the live state equal to the state rebuilt from the log', { timeout: 300_000 }, async () => {
  const dir = tempDir();
  const clock = new TickingClock(Date.parse('2026-07-01T08:00:00.000Z'));
  const live = await openEngine(dir.path, { clock });
  let run = 0;
  try {
    await FAILING_APPENDS.execute(live.db);
    await fc.assert(
      fc.asyncProperty(fc.array(burst, { minLength: 1, maxLength: 4 }), async (bursts) => {
        const businessId = `run_${run++}`;
        const ids: string[] = [];
        let n = 0;
        for (const { advance, decisions } of bursts) {
          clock.ms += advance;
          const made = await Promise.allSettled(
            decisions.map((d) =>
              live.decide(
                tx(`${d.fails ? 'FAIL' : 'OK'}-${n++}`, {
                  transactionData: { amount: d.amount, receiverAccount: `r-${d.receiver}`, senderAccount: `s-${d.user}` },
                  anonymizedUserData: { uniqueId: `u-${d.user}` },
                  device: { deviceId: `d-${d.device}` },
                }),
                { businessId },
              ),
            ),
          );
          for (const [i, m] of made.entries()) {
            expect(m.status).toBe(decisions[i]!.fails ? 'rejected' : 'fulfilled');
            if (m.status === 'fulfilled') ids.push(m.value.transactionId);
          }
        }
        const now = clock.ms + MIN;
        const rebuilt = new MonitoringState(live.monitoring.state.ruleset);
        await rebuilt.rebuild(live.store, now);
        const of = (state: MonitoringState) => {
          const view = observable(state, now, ids);
          return { business: view.businesses.find((b) => b.id === businessId), decided: view.decided };
        };
        expect(of(live.monitoring.state)).toEqual(of(rebuilt));
      }),
      {
        numRuns: 12,
        seed: 34,
        examples: [
          // A failing decision between two of the same user: it must count in neither the window nor the history.
          [
            [
              {
                advance: 0,
                decisions: [
                  { user: 0, device: 0, receiver: 0, amount: 5_000, fails: false },
                  { user: 0, device: 1, receiver: 1, amount: 7_000_000, fails: true },
                  { user: 0, device: 0, receiver: 0, amount: 6_000, fails: false },
                ],
              },
            ],
          ],
          // A business whose only decision fails is not known afterwards.
          [[{ advance: 0, decisions: [{ user: 0, device: 0, receiver: 0, amount: 1_000, fails: true }] }]],
        ],
      },
    );
  } finally {
    await live.close();
    dir.remove();
  }
});
