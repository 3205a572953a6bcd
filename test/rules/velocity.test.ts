import type { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Dec, HistoryStore, RulesRuntime, VelocityStore } from '../../src/rules/index.js';
import { compileText, DECIDE, testSchema } from './helpers.js';

// Brute force uses the same 40-digit Decimal configuration as the store (avg divides).
// One rule per aggregate shape; the store is built for exactly these features.
const AGGREGATES = [
  'count(by user over 10 minutes)',
  'count(by user over 1 hour where x.f = true)',
  'sum(x.a by user over 10 minutes)',
  'avg(x.a by other over 30 minutes)',
  'max(x.a by user over 20 minutes)',
  'distinct(x.t by user over 1 hour)',
];
const ruleset = compileText(
  AGGREGATES.map((a, i) => `rule R${i} "t"\n  when ${a} is not missing\n  score 1\n  reason C low "m"\nend\n`).join('') +
    DECIDE.replace('high at 80\n  medium at 40\n  ', ''),
);

interface Tx {
  x: { s?: string; a?: number; f: boolean; t: string };
  y: { u: string };
}

const cents = fc.integer({ min: -50_000, max: 500_000 }).map((c) => c / 100);
/**
 * Amounts that move a feature's scaled integers to more places (up to 12 decimals) and past what doubles hold
 * exactly (up to 1e20), so the store's switch to Decimals is compared against brute force too.
 */
const wideAmounts = fc.oneof(
  cents,
  fc.tuple(fc.integer({ min: -1e6, max: 1e6 }), fc.integer({ min: 0, max: 12 })).map(([n, places]) => n / 10 ** places),
  fc.tuple(fc.integer({ min: 1, max: 9_999 }), fc.integer({ min: 11, max: 16 })).map(([n, e]) => n * 10 ** e),
);
const txWith = (amounts: fc.Arbitrary<number>) =>
  fc.record({
    x: fc.record({
      s: fc.option(fc.constantFrom('u1', 'u2', 'u3'), { nil: undefined }),
      a: fc.option(amounts, { nil: undefined }),
      f: fc.boolean(),
      t: fc.constantFrom('r1', 'r2', 'r3', 'r4'),
    }),
    y: fc.record({ u: fc.constantFrom('k1', 'k2') }),
  });
const tx = txWith(cents);
const stepWith = (t: fc.Arbitrary<Tx>) => fc.record({ tx: t, gapMs: fc.integer({ min: 0, max: 25 * 60_000 }) });
const step = stepWith(tx);

/** The aggregate by brute force over every earlier transaction plus the current one. */
function bruteForce(feature: string, history: readonly { tx: Tx; at: number }[], current: Tx, now: number): Decimal | undefined {
  const spec = ruleset.features.find((f) => f.id === feature)!;
  const keyOf = (t: Tx): string | undefined => (spec.key === 'user' ? t.x.s : t.y.u);
  const key = keyOf(current);
  if (key === undefined) return undefined;
  const rows = [...history.filter((h) => h.at > now - spec.windowMs && h.at <= now).map((h) => h.tx), current].filter(
    (t) => keyOf(t) === key && (spec.filterText === null || t.x.f),
  );
  const amounts = rows.filter((t) => t.x.a !== undefined).map((t) => new Dec(String(t.x.a)));
  switch (spec.fn) {
    case 'count':
      return new Dec(rows.length);
    case 'sum':
      return amounts.reduce((s, a) => s.plus(a), new Dec(0));
    case 'avg':
      return amounts.length === 0 ? undefined : amounts.reduce((s, a) => s.plus(a), new Dec(0)).div(amounts.length);
    case 'max':
      return amounts.length === 0 ? undefined : amounts.reduce((m, a) => (a.gt(m) ? a : m));
    case 'distinct':
      return new Dec(new Set(rows.map((t) => t.x.t)).size);
  }
}

describe('VelocityStore', () => {
  it('builds exactly the features the ruleset needs', () => {
    expect(ruleset.features.map((f) => f.id)).toEqual(AGGREGATES);
  });

  it.each([
    ['amounts in cents', step],
    ['amounts of up to 12 places and up to 1e20', stepWith(txWith(wideAmounts))],
  ])('equals a brute-force computation over the same history, including expiry (%s)', (_, steps) => {
    fc.assert(
      fc.property(fc.array(steps, { minLength: 1, maxLength: 60 }), (steps) => {
        const store = new VelocityStore(ruleset);
        const history: { tx: Tx; at: number }[] = [];
        let now = 0;
        for (const { tx: t, gapMs } of steps) {
          now += gapMs;
          const env = ruleset.pastEnv(t);
          for (const id of AGGREGATES) {
            const got = store.valueWith(id, env, now);
            const want = bruteForce(id, history, t, now);
            expect(got === undefined ? undefined : got.toString(), `${id} at ${now}`).toBe(
              want === undefined ? undefined : want.toString(),
            );
          }
          store.record(t, now);
          history.push({ tx: t, at: now });
        }
        store.evictExpired(now + 2 * 3_600_000);
        expect(store.stats().keys).toBe(0);
      }),
      { numRuns: 150 },
    );
  });

  it('gives the same aggregates whatever order the records arrive in (a replay applies log order, not decision order)', () => {
    const record = fc.record({ tx, at: fc.integer({ min: 0, max: 90 * 60_000 }) });
    fc.assert(
      fc.property(
        fc.array(record, { minLength: 1, maxLength: 50 }),
        fc.array(fc.nat(130 * 60_000), { minLength: 1, maxLength: 6 }),
        (records, probes) => {
          const arrived = new VelocityStore(ruleset);
          for (const r of records) arrived.record(r.tx, r.at);
          const inOrder = new VelocityStore(ruleset);
          for (const r of [...records].sort((a, b) => a.at - b.at)) inOrder.record(r.tx, r.at);
          const latest = Math.max(...records.map((r) => r.at));
          for (const now of probes.map((p) => latest + p).sort((a, b) => a - b)) {
            for (const id of AGGREGATES) {
              for (const key of ['u1', 'u2', 'u3', 'k1', 'k2']) {
                expect(arrived.value(id, key, now)?.toString(), `${id} for ${key} at ${now}`).toBe(inOrder.value(id, key, now)?.toString());
              }
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('answers alike after a snapshot and a restore, and after a reload carries its windows', () => {
    fc.assert(
      fc.property(fc.array(stepWith(txWith(wideAmounts)), { minLength: 1, maxLength: 40 }), fc.nat(40 * 60_000), (steps, later) => {
        const store = new VelocityStore(ruleset);
        let now = 0;
        for (const { tx: t, gapMs } of steps) store.record(t, (now += gapMs));
        const restored = VelocityStore.restored(ruleset, store.snapshot())!;
        const carried = new VelocityStore(ruleset, store);
        for (const id of AGGREGATES) {
          for (const key of ['u1', 'u2', 'u3', 'k1', 'k2']) {
            const want = store.value(id, key, now + later)?.toString();
            expect(restored.value(id, key, now + later)?.toString(), `${id} for ${key}`).toBe(want);
            expect(carried.value(id, key, now + later)?.toString(), `${id} for ${key}`).toBe(want);
          }
        }
        // Bytes follow the arrays' capacities, which depend on the path taken: the windows must not.
        const { keys, entries } = store.stats();
        expect(restored.stats()).toMatchObject({ keys, entries });
      }),
      { numRuns: 150 },
    );
  });

  it('excludes the current transaction from value() and counts an entry until its window ends', () => {
    const store = new VelocityStore(ruleset);
    const id = 'count(by user over 10 minutes)';
    store.record({ x: { s: 'u1', f: true, t: 'r' } }, 0);
    expect(store.value(id, 'u1', 10 * 60_000 - 1)?.toNumber()).toBe(1);
    expect(store.value(id, 'u1', 10 * 60_000)?.toNumber()).toBe(0);
  });

  it('decides exactly like evaluate then record, with expiry sweeps in between', () => {
    // decide() reuses the decision's Env and the windows it found; the two-step path looks everything up again.
    fc.assert(
      fc.property(fc.array(fc.record({ step, sweep: fc.boolean() }), { minLength: 1, maxLength: 40 }), (steps) => {
        const [fused, split] = [new RulesRuntime(ruleset), new RulesRuntime(ruleset)];
        let now = 0;
        for (const { step: s, sweep } of steps) {
          now += s.gapMs;
          const a = fused.decide(s.tx, now);
          const b = split.evaluate(s.tx, now);
          split.record(s.tx, now);
          expect(a).toEqual(b);
          if (sweep) for (const r of [fused, split]) r.velocity.evictExpired(now);
        }
        expect(fused.velocity.stats()).toEqual(split.velocity.stats());
      }),
      { numRuns: 150 },
    );
  });

  it('keeps state for features shared with the previous ruleset', () => {
    const store = new VelocityStore(ruleset);
    store.record({ x: { s: 'u1', a: 5, f: true, t: 'r' } }, 0);
    const next = compileText(
      `rule N "t"\n  when count(by user over 10 minutes) > 0 and count(by user over 1 day) > 0\n  score 1\n  reason C low "m"\nend\n${DECIDE.replace('high at 80\n  medium at 40\n  ', '')}`,
    );
    const carried = new VelocityStore(next, store);
    expect(carried.value('count(by user over 10 minutes)', 'u1', 1)?.toNumber()).toBe(1);
    expect(VelocityStore.newFeatures(carried, store)).toEqual(['count(by user over 1 day)']);
  });

  it('reports an approximate memory footprint per key', () => {
    const store = new VelocityStore(ruleset);
    for (let i = 0; i < 100; i++) store.record({ x: { s: `u${i}`, a: 10, f: true, t: 'r' }, y: { u: 'k' } }, i);
    const stats = store.stats();
    expect(stats.keys).toBe(100 * 5 + 1);
    expect(stats.approxBytesPerKey).toBeGreaterThan(0);
  });
});

const READS_ALL = { pairs: ['pair'], keys: ['other', 'user'] };

describe('HistoryStore', () => {
  it('knows first-seen pairs and the last time a key transacted', () => {
    const history = new HistoryStore(testSchema, READS_ALL);
    const t1 = { x: { s: 'u1', t: 'dev1' } };
    expect(history.firstSeen('pair', t1)).toBe(true);
    expect(history.lastSeen('user', t1)).toBeUndefined();
    history.record(t1, 1000);
    expect(history.firstSeen('pair', t1)).toBe(false);
    expect(history.firstSeen('pair', { x: { s: 'u1', t: 'dev2' } })).toBe(true);
    expect(history.firstSeen('pair', { x: { s: 'u1' } })).toBeUndefined();
    expect(history.lastSeen('user', t1)).toBe(1000);
    history.forgetBefore(2000);
    expect(history.firstSeen('pair', t1)).toBe(true);
  });

  it('keeps the latest time of a pair and a key when a record arrives late (a replay in log order)', () => {
    const history = new HistoryStore(testSchema, READS_ALL);
    const t1 = { x: { s: 'u1', t: 'dev1' } };
    history.record(t1, 2000);
    history.record({ x: { s: 'u2', t: 'dev2' } }, 3000);
    history.record(t1, 1000);
    expect(history.lastSeen('user', t1)).toBe(2000);
    history.forgetBefore(1500);
    expect(history.firstSeen('pair', t1)).toBe(false);
  });

  it('keeps only the history the ruleset reads, and shares what a carried store keeps', () => {
    const rules = compileText(
      `rule R "t"\n  when firstSeen(pair) and lastSeen(user) is missing\n  score 90\n  reason C low "m"\nend\n${DECIDE}`,
    );
    expect(rules.history).toEqual({ pairs: ['pair'], keys: ['user'] });
    const history = new HistoryStore(testSchema, rules.history);
    const t1 = { x: { s: 'u1', t: 'dev1' }, y: { u: 'o1' } };
    history.record(t1, 1000);
    expect([...history.snapshot().last.keys()]).toEqual(['user']);
    expect(() => history.lastSeen('other', t1)).toThrow("history of the key 'other' is not kept");

    const wider = new HistoryStore(testSchema, READS_ALL, history);
    expect(wider.lastSeen('user', t1)).toBe(1000);
    expect(wider.firstSeen('pair', t1)).toBe(false);
    expect(wider.lastSeen('other', t1)).toBeUndefined();
    wider.record({ x: { s: 'u2', t: 'dev2' }, y: { u: 'o2' } }, 2000);
    expect(history.lastSeen('user', { x: { s: 'u2' } })).toBe(2000);
  });
});
