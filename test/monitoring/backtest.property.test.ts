import fc from 'fast-check';
import { expect, it } from 'vitest';
import type { Clock } from '../../src/clock.js';
import type { Engine } from '../../src/engine.js';
import { ENGINE_BLACKLIST_RULE } from '../../src/monitoring/decision.js';
import type { ListKind } from '../../src/monitoring/events.js';
import type { BacktestReport, RuleSources } from '../../src/rules/index.js';
import { openEngine, tempDir } from '../helpers.js';
import { backtestHere, tx } from './fixtures.js';

const MIN = 60_000;
/** On the bundled sanctions lists (SANCTIONS_RECEIVER fires on it), and a name on none. */
const SANCTIONED = 'Ayman al-Zawahiri';
const CLEAN = 'Chinwe Adebayo';

/** Moves on by a millisecond at every reading, so each decision of a burst has a time of its own. */
class TickingClock implements Clock {
  constructor(public ms: number) {}
  now(): Date {
    return new Date(++this.ms);
  }
}

const decision = fc.record({
  user: fc.nat(2),
  receiver: fc.nat(2),
  device: fc.nat(2),
  amount: fc.integer({ min: 1_000, max: 3_000_000 }),
  sanctioned: fc.boolean(),
  sanctionedSender: fc.boolean(),
});
const step = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('burst' as const),
      advance: fc.nat(12 * MIN),
      decisions: fc.array(decision, { minLength: 1, maxLength: 7 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('list' as const),
      list: fc.constantFrom<ListKind>('users', 'accounts', 'devices'),
      who: fc.nat(2),
      add: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('device' as const), user: fc.nat(2), device: fc.nat(2) }) },
);
type Step = typeof step extends fc.Arbitrary<infer S> ? S : never;

/** Candidates that differ from the rules in force in one rule: without it, or with another window or threshold. */
const change = fc.oneof(
  fc.record({
    kind: fc.constant('remove' as const),
    rule: fc.constantFrom(
      'VEL_USER_10M',
      'VEL_USER_SUM_1H',
      'BL_USER',
      'BL_ACCOUNT',
      'BL_DEVICE',
      'SANCTIONS_RECEIVER',
      'NEW_DEVICE_LARGE',
      'NEW_BENEFICIARY_LARGE',
    ),
  }),
  fc.record({ kind: fc.constant('window' as const), minutes: fc.constantFrom(20, 45) }),
  fc.record({ kind: fc.constant('threshold' as const), at: fc.integer({ min: 2, max: 4 }) }),
  // Screens a name no decision screened: scored on the list versions in force at each decision's position.
  fc.constant({ kind: 'add' as const }),
);
const SANCTIONS_SENDER = `rule SANCTIONS_SENDER "Sender name matches a sanctions list"
  when sanctionsScore(screeningData.senderName) >= 90
  score 100
  reason SCR009 critical "sender on a sanctions list"
end
`;
type Change = typeof change extends fc.Arbitrary<infer C> ? C : never;

const value = (list: ListKind, who: number) => (list === 'users' ? `user-${who}` : list === 'accounts' ? `acc-${who}` : `dev-${who}`);

async function play(engine: Engine, clock: TickingClock, steps: readonly Step[]): Promise<number> {
  const actor = { businessId: 'default' };
  let n = 0;
  for (const s of steps) {
    if (s.kind === 'burst') {
      clock.ms += s.advance;
      // Concurrent, so that decisions opening a case commit after approved ones decided after them.
      await Promise.all(
        s.decisions.map((d) =>
          engine.decide(
            tx(`BT-${n++}`, {
              transactionData: { amount: d.amount, senderAccount: `acc-${d.user}`, receiverAccount: `rcv-${d.receiver}` },
              anonymizedUserData: { uniqueId: `user-${d.user}` },
              device: { deviceId: `dev-${d.device}` },
              screeningData: { senderName: d.sanctionedSender ? SANCTIONED : 'Ada Obi', receiverName: d.sanctioned ? SANCTIONED : CLEAN },
            }),
          ),
        ),
      );
    } else if (s.kind === 'list') {
      if (s.add) await engine.monitoring.addToBlacklist(actor, s.list, value(s.list, s.who));
      else await engine.monitoring.removeFromBlacklist(actor, s.list, value(s.list, s.who)).catch(() => undefined);
    } else {
      await engine.monitoring.saveDevice(actor, { customerId: `user-${s.user}`, device: { deviceId: `dev-${s.device}` } });
    }
  }
  return n;
}

/** Today's world unlike any the decisions saw: every party blacklisted. */
async function changeTheWorld(engine: Engine): Promise<void> {
  for (const list of ['users', 'accounts', 'devices'] as const)
    for (let who = 0; who <= 2; who++) await engine.monitoring.addToBlacklist({ businessId: 'default' }, list, value(list, who));
}

function candidate(sources: RuleSources, c: Change): { sources: RuleSources; rule: string } {
  if (c.kind === 'add')
    return {
      sources: { ...sources, files: [...sources.files, { path: 'sender.rules', text: SANCTIONS_SENDER }] },
      rule: 'SANCTIONS_SENDER',
    };
  const rule = c.kind === 'remove' ? c.rule : 'VEL_USER_10M';
  const edit = (text: string): string => {
    if (c.kind === 'remove') return text.replace(new RegExp(`rule ${rule} "[^"]*"\\n[\\s\\S]*?\\nend\\n`), '');
    if (c.kind === 'window') return text.replace('count(by user over 10 minutes) >= 5', `count(by user over ${c.minutes} minutes) >= 5`);
    return text.replace('count(by user over 10 minutes) >= 5', `count(by user over 10 minutes) >= ${c.at}`);
  };
  const files = sources.files.map((f) => ({ ...f, text: edit(f.text) }));
  expect(files.map((f) => f.text)).not.toEqual(sources.files.map((f) => f.text));
  return { sources: { ...sources, files }, rule };
}

const everySample = (report: BacktestReport) => Object.values(report.samples).flat();

/**
 * Laws: backtesting the ruleset that made the decisions reproduces every one of them (no changed action, the same
 * hits for every rule), whatever the blacklists, saved devices and velocity are today; and a candidate that differs
 * in one rule changes only decisions that rule fired on, before or after.
 */
it('a backtest of the rules in force changes nothing, and one of a one-rule change changes only what that rule touches', {
  timeout: 480_000,
}, async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), change, async (steps, c) => {
      const dir = tempDir();
      const clock = new TickingClock(Date.parse('2026-07-01T08:00:00.000Z'));
      const engine = await openEngine(dir.path, { clock });
      try {
        const made = await play(engine, clock, steps);
        await changeTheWorld(engine);
        const backtestOf = (sources: RuleSources) => backtestHere(engine, dir.path, sources, Infinity);
        const inForce = await engine.monitoring.ruleSources();
        const same = await backtestOf(inForce);
        expect(same).toMatchObject({ decisions: made, changed: 0, unreproducible: [], reconstructed: 0, transitions: {} });
        for (const [id, hits] of Object.entries(same.ruleHits)) expect([id, hits.candidate]).toEqual([id, hits.current]);

        const { sources, rule } = candidate(inForce, c);
        const other = await backtestOf(sources);
        expect(other).toMatchObject({ decisions: made, unreproducible: [] });
        for (const s of everySample(other)) expect([...s.currentFired, ...s.candidateFired]).toContain(rule);
        expect(everySample(other)).toHaveLength(other.changed);
        for (const [id, hits] of Object.entries(other.ruleHits))
          if (id !== rule && id !== ENGINE_BLACKLIST_RULE) expect([id, hits.candidate]).toEqual([id, hits.current]);
      } finally {
        await engine.close();
        dir.remove();
      }
    }),
    { numRuns: 6, seed: 301 },
  );
});
