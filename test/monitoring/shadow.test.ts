// Shadow rulesets on live decisions: a shadow of the deciding ruleset changes nothing; a candidate with one
// threshold lowered changes exactly what a backtest of it over the same traffic changes; a shadow never adds
// anything to the log but its own events; it stops at its limits.
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { runBacktest } from '../../src/monitoring/backtest.js';
import { candidateSources } from '../../src/monitoring/index.js';
import type { StoredEvent } from '../../src/store/index.js';
import { testEngine, type TestEngine } from '../helpers.js';
import { tx } from './fixtures.js';

const RULES = join(import.meta.dirname, '..', '..', 'rules');
const clock = new ManualClock('2026-03-02T08:00:00.000Z');
let t: TestEngine;
/** A copy of the bundled rules, which a test changes to reload the deciding ruleset. */
let rulesDir: string;
let deciding: Record<string, string>;
let business = 0;
let references = 0;

beforeAll(async () => {
  rulesDir = await mkdtemp(join(tmpdir(), 'shadow-rules-'));
  await cp(RULES, rulesDir, { recursive: true });
  t = await testEngine({ rulesDir, watchRules: false, workerIntervalMs: 0, clock });
  const sources = await t.engine.monitoring.ruleSources();
  deciding = Object.fromEntries([
    ...sources.files.map((f) => [f.path.split('/').pop()!, f.text]),
    ...sources.lists.map((l) => [`lists/${l.path.split('/').pop()!}`, l.text]),
  ]);
}, 60_000);
afterAll(async () => {
  await t?.close();
  if (rulesDir) await rm(rulesDir, { recursive: true, force: true });
});

/** One step of traffic: a transfer by one of four users (bursts trip the velocity rules), or a blacklist change. */
type Step = { kind: 'tx'; user: number; amount: number; minutes: number } | { kind: 'blacklist'; user: number; add: boolean };
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('tx' as const),
      user: fc.nat(3),
      amount: fc.constantFrom(20_000, 60_000, 600_000, 2_500_000),
      minutes: fc.nat(4),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('blacklist' as const), user: fc.nat(3), add: fc.boolean() }) },
);

async function play(businessId: string, steps: readonly Step[]): Promise<{ flagged: number }> {
  let flagged = 0;
  for (const s of steps) {
    if (s.kind === 'blacklist') {
      const actor = { businessId };
      if (s.add) await t.engine.monitoring.addToBlacklist(actor, 'users', `user-${s.user}`).catch(() => undefined);
      else await t.engine.monitoring.removeFromBlacklist(actor, 'users', `user-${s.user}`).catch(() => undefined);
      continue;
    }
    clock.advance(s.minutes * 60_000 + 1_000);
    const n = ++references;
    const body = tx(`${businessId}-${n}`, {
      transactionData: { amount: s.amount, senderAccount: `00000000${s.user}1`, receiverAccount: `11111111${n % 7}0` },
      anonymizedUserData: { uniqueId: `user-${s.user}` },
      device: { deviceId: `dev-${s.user}` },
    });
    const decision = await t.engine.monitoring.decide({ businessId }, body);
    if (decision.action.result !== 'approved') flagged++;
  }
  return { flagged };
}

const nextBusiness = () => `shadowbiz${++business}`;

/** A backtest of the candidate `files` over the business's decisions so far: what its shadow must have changed. */
const backtestOf = (businessId: string, files: Record<string, string>) =>
  runBacktest(t.engine.store, t.engine.db, {
    businessId,
    sources: candidateSources(files),
    window: {},
    upTo: t.engine.store.notifiedPosition,
    samplesPerTransition: 1_000,
    dataDir: t.dir,
  });

describe('a shadow ruleset', () => {
  it('of the deciding ruleset changes no decision and hits every rule as often (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 5, maxLength: 40 }), async (steps) => {
        const businessId = nextBusiness();
        await t.engine.shadows.deploy({ businessId }, { files: deciding });
        await play(businessId, steps);
        await t.engine.shadows.settle(businessId);
        const report = await t.engine.shadows.report(businessId);
        expect(report.changed).toBe(0);
        expect(report.decisions).toBe(steps.filter((s) => s.kind === 'tx').length);
        for (const [rule, hits] of Object.entries(report.ruleHits)) expect(hits.candidate, rule).toBe(hits.deciding);
        // Every rule is the deciding ruleset's: none is evaluated again.
        expect(t.engine.shadows.evaluations(businessId).size).toBe(0);
        await t.engine.shadows.stop({ businessId });
      }),
      { numRuns: 8 },
    );
  }, 120_000);

  it('with one threshold lowered changes exactly the decisions a backtest of it over the same traffic changes', async () => {
    const businessId = nextBusiness();
    const files = {
      ...deciding,
      'velocity.rules': deciding['velocity.rules']!.replace('count(by user over 10 minutes) >= 5', 'count(by user over 10 minutes) >= 3'),
    };
    expect(files['velocity.rules']).not.toBe(deciding['velocity.rules']);
    const upTo = t.engine.store.notifiedPosition;
    await t.engine.shadows.deploy({ businessId }, { files });
    const steps = fc.sample(fc.array(step, { minLength: 60, maxLength: 60 }), { seed: 44, numRuns: 1 })[0]!;
    await play(businessId, steps);
    await t.engine.shadows.settle(businessId);
    const report = await t.engine.shadows.report(businessId, { limit: 100 });
    const backtest = await backtestOf(businessId, files);
    expect(upTo).toBeLessThan(backtest.positions.first!);
    expect(report.changed).toBeGreaterThan(0);
    expect(report.changed).toBe(backtest.changed);
    expect(report.transitions).toEqual({ ...backtest.transitions });
    const backtested = Object.values(backtest.samples).flatMap((list) => list.map((s) => s.reference));
    expect(report.changes.items.map((c) => c.reference).sort()).toEqual(backtested.sort());
    for (const [rule, h] of Object.entries(backtest.ruleHits))
      expect(report.ruleHits[rule], rule).toEqual({ deciding: h.current, candidate: h.candidate });
    await t.engine.shadows.stop({ businessId });
  }, 120_000);

  it('evaluates only the rules that differ from the deciding ruleset: a changed rule, or one reading a changed list', async () => {
    const steps = fc.sample(fc.array(step, { minLength: 20, maxLength: 20 }), { seed: 3, numRuns: 1 })[0]!;
    const decisions = steps.filter((s) => s.kind === 'tx').length;
    const evaluated = async (files: Record<string, string>) => {
      const businessId = nextBusiness();
      await t.engine.shadows.deploy({ businessId }, { files });
      await play(businessId, steps);
      await t.engine.shadows.settle(businessId);
      const evaluations = Object.fromEntries(t.engine.shadows.evaluations(businessId));
      expect((await t.engine.shadows.report(businessId)).decisions).toBe(decisions);
      await t.engine.shadows.stop({ businessId });
      return evaluations;
    };
    const velocity = deciding['velocity.rules']!;
    const countries = deciding['lists/high_risk_countries.txt']!;
    const lowered = velocity.replace('count(by user over 10 minutes) >= 5', 'count(by user over 10 minutes) >= 3');
    expect(lowered).not.toBe(velocity);
    expect(await evaluated({ ...deciding, 'velocity.rules': lowered })).toEqual({ VEL_USER_10M: decisions });
    expect(await evaluated({ ...deciding, 'lists/high_risk_countries.txt': `${countries}NG\n` })).toEqual({ HIGH_RISK_COUNTRY: decisions });
    // Reordered values, other comments and layout: the same list, and the same rules.
    const reordered = `# reviewed\n\n${countries.split('\n').reverse().join('\n')}\n`;
    expect(await evaluated({ ...deciding, 'lists/high_risk_countries.txt': reordered, 'velocity.rules': `\n${velocity}` })).toEqual({});
  }, 120_000);

  it('adds nothing to the log but its own events: no alert, case, webhook or list change', async () => {
    const steps = fc.sample(fc.array(step, { minLength: 40, maxLength: 40 }), { seed: 7, numRuns: 1 })[0]!;
    const strict = { ...deciding, 'decide.rules': 'decide\n  rejected at 30\n  review at 10\n  otherwise approved\nend\n' };
    const types = async (businessId: string, after: number) => {
      const events: StoredEvent[] = [];
      for await (const e of t.engine.store.iterateAll({ after })) if (e.metadata.businessId === businessId) events.push(e);
      return events;
    };
    const without = nextBusiness();
    const withShadow = nextBusiness();
    for (const businessId of [without, withShadow]) await t.engine.webhooks.setEndpoint({ businessId }, 'http://127.0.0.1:9/hook');
    const start = t.engine.store.notifiedPosition;
    await t.engine.shadows.deploy({ businessId: withShadow }, { files: strict });
    const live = await play(without, steps);
    expect(await play(withShadow, steps)).toEqual(live);
    await t.engine.shadows.settle(withShadow);
    const report = await t.engine.shadows.report(withShadow);
    expect(report.changed).toBeGreaterThan(0);
    // Only the decide section differs: the rules' outcomes are the deciding evaluation's, scored by the candidate.
    expect(t.engine.shadows.evaluations(withShadow).size).toBe(0);
    const shape = (events: StoredEvent[]) =>
      events
        .filter((e) => !e.type.startsWith('Shadow'))
        .map((e) => e.type)
        .sort();
    const [a, b] = [await types(without, start), await types(withShadow, start)];
    expect(shape(b)).toEqual(shape(a));
    expect(b.filter((e) => e.type === 'CaseAlertAdded')).toHaveLength(live.flagged);
    expect(b.filter((e) => e.type.startsWith('Shadow')).every((e) => e.streamId === `shadow-${withShadow}`)).toBe(true);
    await t.engine.shadows.stop({ businessId: withShadow });
  }, 120_000);

  it('compares the candidate with the deciding ruleset reloaded while it runs, as a backtest does', async () => {
    const businessId = nextBusiness();
    const threshold = (n: number) =>
      deciding['velocity.rules']!.replace('count(by user over 10 minutes) >= 5', `count(by user over 10 minutes) >= ${n}`);
    const files = { ...deciding, 'velocity.rules': threshold(3) };
    await t.engine.shadows.deploy({ businessId }, { files });
    const [first, second] = fc.sample(fc.array(step, { minLength: 40, maxLength: 40 }), { seed: 12, numRuns: 2 });
    await play(businessId, first!);
    const before = t.engine.monitoring.rulesetVersion;
    try {
      await writeFile(join(rulesDir, 'velocity.rules'), threshold(4));
      await t.engine.monitoring.reloadRules();
      expect(t.engine.monitoring.rulesetVersion).not.toBe(before);
      await play(businessId, second!);
      await t.engine.shadows.settle(businessId);
    } finally {
      await writeFile(join(rulesDir, 'velocity.rules'), deciding['velocity.rules']!);
      await t.engine.monitoring.reloadRules();
    }
    const report = await t.engine.shadows.report(businessId, { limit: 100 });
    const backtest = await backtestOf(businessId, files);
    const decisions = [...first!, ...second!].filter((s) => s.kind === 'tx').length;
    expect(report.decisions).toBe(decisions);
    expect(report.changed).toBe(backtest.changed);
    expect(report.transitions).toEqual({ ...backtest.transitions });
    for (const [rule, h] of Object.entries(backtest.ruleHits))
      expect(report.ruleHits[rule], rule).toEqual({ deciding: h.current, candidate: h.candidate });
    // Under both deciding rulesets the candidate differs in that one rule only.
    expect(Object.fromEntries(t.engine.shadows.evaluations(businessId))).toEqual({ VEL_USER_10M: decisions });
    await t.engine.shadows.stop({ businessId });
  }, 120_000);

  it('has recorded what it evaluated when settle returns, though another record was under way', async () => {
    const businessId = nextBusiness();
    await t.engine.shadows.deploy({ businessId }, { files: deciding });
    await play(businessId, [{ kind: 'tx', user: 0, amount: 20_000, minutes: 1 }]);
    // The first settle's record (as the 5-second timer's might be) is being appended when the second settles.
    const [, report] = await Promise.all([
      t.engine.shadows.settle(businessId),
      t.engine.shadows.settle(businessId).then(() => t.engine.shadows.report(businessId)),
    ]);
    expect(report.decisions).toBe(1);
    await t.engine.shadows.stop({ businessId });
  });

  it('stops by itself after its number of decisions, or its time', async () => {
    const byCount = nextBusiness();
    await t.engine.shadows.deploy({ businessId: byCount }, { files: deciding, maxDecisions: 5 });
    await play(
      byCount,
      Array.from({ length: 8 }, (_, i) => ({ kind: 'tx' as const, user: i % 4, amount: 20_000, minutes: 1 })),
    );
    await t.engine.shadows.settle(byCount);
    expect(await t.engine.shadows.report(byCount)).toMatchObject({
      decisions: 5,
      shadow: { status: 'stopped', stopReason: 'decision limit' },
    });

    const byTime = nextBusiness();
    await t.engine.shadows.deploy({ businessId: byTime }, { files: deciding, hours: 1 });
    await play(byTime, [{ kind: 'tx', user: 0, amount: 20_000, minutes: 30 }]);
    await t.engine.shadows.settle(byTime);
    await play(byTime, [{ kind: 'tx', user: 0, amount: 20_000, minutes: 31 }]);
    await t.engine.shadows.settle(byTime);
    expect(await t.engine.shadows.report(byTime)).toMatchObject({ decisions: 1, shadow: { status: 'stopped', stopReason: 'time limit' } });
    // A new shadow may start once the last one stopped.
    await t.engine.shadows.deploy({ businessId: byTime }, { files: deciding });
    await expect(t.engine.shadows.deploy({ businessId: byTime }, { files: deciding })).rejects.toThrow(/already runs/);
    await t.engine.shadows.stop({ businessId: byTime });
  }, 60_000);

  it('refuses a candidate that does not compile, naming the field', async () => {
    await expect(t.engine.shadows.deploy({ businessId: nextBusiness() }, { files: { 'a.rules': 'rule X' } })).rejects.toMatchObject({
      field: 'files',
    });
    await expect(t.engine.shadows.deploy({ businessId: nextBusiness() }, { files: deciding, hours: 0 })).rejects.toMatchObject({
      field: 'hours',
    });
    expect(await readFile(join(RULES, 'velocity.rules'), 'utf8')).toContain('>= 5');
  });
});
