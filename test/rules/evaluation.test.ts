import { describe, expect, it } from 'vitest';
import { MemoryLists, NO_RULE_FIRED, RulesRuntime, transactionSchema } from '../../src/rules/index.js';
import { compileText } from './helpers.js';

const TEXT = `
rule BIG "Big amount"
  when x.a >= 100
  score 30
  reason BIG1 medium "big"
end
rule HUGE "Huge amount"
  when x.a >= 1000
  score 60
  reason HUGE1 medium "huge"
end
rule BANNED "Banned"
  when x.s in list banned
  score 5
  reason BAN1 critical "banned"
  force high
end
rule BONUS "Trusted"
  when x.f
  score -50
  reason TRUST low "trusted"
end
rule BURST "Burst"
  when count(by user over 10 minutes) >= 3
  score 1
  reason BURST1 low "burst"
end
decide
  high at 80
  medium at 40
  otherwise low
end
`;
const ruleset = compileText(TEXT);

function runtime(banned: string[] = []): RulesRuntime {
  const lists = new MemoryLists();
  for (const b of banned) lists.add('banned', b);
  return new RulesRuntime(ruleset, { lists });
}

describe('evaluation', () => {
  it('sums scores, clamps riskScore to 0..100 and maps it to the first threshold reached', () => {
    const r = runtime();
    expect(r.evaluate({ x: { a: 50 } }, 0)).toMatchObject({
      riskScore: '0',
      action: { result: 'low', code: 0 },
      reason: NO_RULE_FIRED,
      fired: [],
    });
    expect(r.evaluate({ x: { a: 150 } }, 0)).toMatchObject({ riskScore: '30', action: { result: 'low' } });
    const huge = r.evaluate({ x: { a: 5000 } }, 0);
    expect(huge.score.toString()).toBe('90');
    expect(huge).toMatchObject({ riskScore: '90', action: { result: 'high', code: 2 } });
    expect(r.evaluate({ x: { a: 5000, f: true } }, 0)).toMatchObject({ riskScore: '40', action: { result: 'medium' } });
    expect(r.evaluate({ x: { a: 1, f: true } }, 0).riskScore).toBe('0');
  });

  it('lets a forced action win regardless of score and reports the most severe reason', () => {
    const result = runtime(['bad']).evaluate({ x: { a: 5000, s: 'bad' } }, 0);
    expect(result.action).toEqual({ result: 'high', code: 2 });
    expect(result.reason).toEqual({ code: 'BAN1', message: 'banned', severity: 'critical' });
    const low = runtime(['bad']).evaluate({ x: { a: 1, s: 'bad' } }, 0);
    expect(low).toMatchObject({ riskScore: '5', action: { result: 'high' } });
  });

  it('matches patterns in linear time, so that a pattern a backtracking engine would explode on cannot stall a decision', () => {
    const text = `rule RE "Pattern"\n  when matches(x.s, "^(a+)+$")\n  score 50\n  reason RE1 low "re"\nend\ndecide\n  medium at 40\n  otherwise low\nend\n`;
    const patterns = new RulesRuntime(compileText(text));
    // With JavaScript's own engine this input takes longer than the age of the universe.
    expect(patterns.evaluate({ x: { s: `${'a'.repeat(40)}!` } }, 0).action.result).toBe('low');
    expect(patterns.evaluate({ x: { s: 'AAAA' } }, 0).action.result).toBe('medium');
  });

  it('breaks severity ties by the higher score', () => {
    expect(runtime().evaluate({ x: { a: 5000 } }, 0).reason.code).toBe('HUGE1');
  });

  it('explains each fired rule with the values behind the hit', () => {
    const r = runtime();
    r.decide({ x: { s: 'u', a: 1 } }, 0);
    r.decide({ x: { s: 'u', a: 1 } }, 1000);
    const fired = r.evaluate({ x: { s: 'u', a: 250.5 } }, 2000).fired;
    expect(fired.map((f) => f.id)).toEqual(['BIG', 'BURST']);
    expect(fired[0]!.observed).toEqual([{ test: 'x.a >= 100', holds: true, values: { 'x.a': '250.5' } }]);
    expect(fired[1]!.observed).toEqual([
      { test: 'count(by user over 10 minutes) >= 3', holds: true, values: { 'count(by user over 10 minutes)': '3' } },
    ]);
  });

  it('never fires on a missing value unless the rule asks for it', () => {
    const rules = compileText(
      `rule A "a"\n  when not (x.a > 5)\n  score 1\n  reason A low "m"\nend\nrule B "b"\n  when x.a is missing or x.a > 5\n  score 1\n  reason B low "m"\nend\ndecide\n  otherwise low\nend\n`,
    );
    const fired = new RulesRuntime(rules).evaluate({ x: {} }, 0).fired.map((f) => f.id);
    expect(fired).toEqual(['B']);
  });

  it('records the ruleset version, a content hash of the files', () => {
    const a = compileText(TEXT);
    const b = compileText(`${TEXT}\n# a comment changes the content\n`);
    expect(runtime().evaluate({ x: {} }, 0).rulesetVersion).toBe(a.version);
    expect(a.version).toMatch(/^sha256:[0-9a-f]{16}$/);
    expect(b.version).not.toBe(a.version);
  });

  it('scopes knownDevices to the current user', () => {
    const rules = compileText(
      `rule K "k"\n  when device.deviceId in list knownDevices\n  score 1\n  reason K low "m"\nend\ndecide\n  otherwise approved\nend\n`,
      { schema: transactionSchema },
    );
    const lists = new MemoryLists();
    lists.add('knownDevices', 'd1', 'u1');
    const r = new RulesRuntime(rules, { lists });
    const req = (user: string) => ({ device: { deviceId: 'd1' }, anonymizedUserData: { uniqueId: user } });
    expect(r.evaluate(req('u1'), 0).fired).toHaveLength(1);
    expect(r.evaluate(req('u2'), 0).fired).toHaveLength(0);
  });
});
