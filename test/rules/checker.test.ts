import { describe, expect, it } from 'vitest';
import { transactionSchema } from '../../src/rules/index.js';
import { DECIDE, diagnostics } from './helpers.js';

const rule = (when: string, extra = ''): string => `rule R1 "t"\n  when ${when}\n  score 10\n  reason C1 low "m"\n${extra}end\n${DECIDE}`;

describe('checker messages', () => {
  it('reports an unknown field with a suggestion, at the field', () => {
    const text = `rule V1 "t"\n  when transactionData.amout > 5\n  score 10\n  reason C1 low "m"\nend\ndecide\n  review at 40\n  otherwise approved\nend\n`;
    expect(diagnostics(text, { schema: transactionSchema })).toEqual([
      'rules/a.rules:2:8 unknown field transactionData.amout (did you mean transactionData.amount?)',
    ]);
  });

  it('reports type mismatches at the operator', () => {
    expect(diagnostics(rule('x.a > "ten"'))).toEqual(['rules/a.rules:2:12 cannot compare decimal with string using >']);
    expect(diagnostics(rule('x.s < "b"'))).toEqual(['rules/a.rules:2:8 < needs numbers or timestamps, got string']);
    expect(diagnostics(rule('x.ts = 3'))).toEqual(['rules/a.rules:2:13 cannot compare timestamp with integer using =']);
    expect(diagnostics(rule('x.a + 1'))).toEqual(['rules/a.rules:2:8 the when condition must be boolean, got decimal']);
    expect(diagnostics(rule('x.f and x.s'))).toEqual(['rules/a.rules:2:16 right side of and must be boolean, got string']);
  });

  it('reports unknown lists with a suggestion', () => {
    expect(diagnostics(rule('x.s in list countrys'), { lists: { countries: 'NG\n' } })).toEqual([
      'rules/a.rules:2:20 unknown list countrys (did you mean countries?)',
    ]);
  });

  it('rejects engine lists inside velocity filters, which would change under replay', () => {
    expect(diagnostics(rule('count(by user over 1 hour where x.t in list banned) > 1'))).toEqual([
      'rules/a.rules:2:52 list banned changes over time and cannot be used inside a velocity filter',
    ]);
  });

  it('reports bad windows and unknown keys and aggregates', () => {
    expect(diagnostics(rule('count(by user over 0 minutes) > 1'))).toEqual([
      'rules/a.rules:2:27 bad window 0 minutes: use a whole number of at least 1',
    ]);
    expect(diagnostics(rule('count(by user over 30 days) > 1'))).toEqual([
      'rules/a.rules:2:27 bad window 30 days: the longest window is 7 days',
    ]);
    expect(diagnostics(rule('count(by usr over 1 hour) > 1'))).toEqual([
      'rules/a.rules:2:17 unknown key usr (did you mean user?); keys are user, other',
    ]);
    expect(diagnostics(rule('total(x.a by user over 1 hour) > 1'))).toEqual(['rules/a.rules:2:8 unknown aggregate total']);
    expect(diagnostics(rule('sum(by user over 1 hour) > 1'))).toEqual([
      'rules/a.rules:2:8 sum needs a value, e.g. sum(transactionData.amount by user over ...)',
    ]);
  });

  it('reports duplicate rule ids with the first definition', () => {
    const text = `rule R1 "a"\n  when x.f\n  score 1\n  reason C low "m"\nend\nrule R1 "b"\n  when x.g\n  score 1\n  reason C low "m"\nend\n${DECIDE}`;
    expect(diagnostics(text)).toEqual(['rules/a.rules:6:1 duplicate rule id R1 (first defined at rules/a.rules:1:1)']);
  });

  it('reports unreachable and unknown thresholds', () => {
    const rules = 'rule R1 "a"\n  when x.f\n  score 50\n  reason C low "m"\nend\n';
    expect(diagnostics(`${rules}decide\n  medium at 40\n  high at 60\n  otherwise low\nend\n`)).toEqual([
      'rules/a.rules:8:3 threshold high at 60 is unreachable: medium at 40 already takes every riskScore >= 40',
    ]);
    expect(diagnostics(`${rules}decide\n  high at 120\n  otherwise low\nend\n`)).toEqual([
      'rules/a.rules:7:3 threshold high at 120 is unreachable: riskScore is at most 100',
    ]);
    expect(diagnostics(`${rules}decide\n  high at 80\n  otherwise low\nend\n`)).toEqual([
      'rules/a.rules:7:3 threshold high at 80 is unreachable: the rules add up to at most 50',
    ]);
    expect(diagnostics(`${rules}decide\n  hihg at 30\n  otherwise low\nend\n`)).toEqual([
      'rules/a.rules:7:3 unknown action hihg (did you mean high?); actions are low, medium, high',
    ]);
  });

  it('reports missing clauses, bad severities and unknown functions', () => {
    expect(diagnostics(`rule R1 "a"\n  when x.f\n  reason C low "m"\nend\n${DECIDE}`)).toContain(
      'rules/a.rules:1:1 rule R1 has no score clause',
    );
    expect(diagnostics(rule('x.f').replace('low "m"', 'hgh "m"'))).toEqual([
      'rules/a.rules:4:13 unknown severity hgh (did you mean high?); use low, medium, high, critical',
    ]);
    expect(diagnostics(rule('lowr(x.s) = "a"'))).toEqual(['rules/a.rules:2:8 unknown function lowr (did you mean lower?)']);
    expect(diagnostics(rule('matches(x.s, "(")'))[0]).toMatch(/^rules\/a.rules:2:21 invalid pattern: /);
    // Patterns are RE2's, matched in linear time: look-around, which needs backtracking, is not offered.
    expect(diagnostics(rule('matches(x.s, "(?=a)b")'))[0]).toMatch(/^rules\/a.rules:2:21 invalid pattern: /);
    expect(diagnostics(rule('firstSeen(x.s)'))).toEqual(['rules/a.rules:2:18 firstSeen takes one of pair; got x.s']);
  });

  it('bounds what a file may hold, so that an uploaded ruleset cannot stall or crash the process', () => {
    const values = Array.from({ length: 6_000 }, (_, i) => String(i)).join(', ');
    expect(diagnostics(rule(`x.a in [${values}]`))).toEqual([
      'rules/a.rules:1:1 the file has more than 10,000 tokens: split its rules over several files, and keep long value lists in lists/*.txt',
    ]);
    expect(diagnostics(rule(`${'not '.repeat(5_000)}x.f`))).toEqual([
      'rules/a.rules:2:3 the expression is nested more than 100 levels deep: split it over several rules',
    ]);
    expect(diagnostics(rule(Array.from({ length: 100 }, () => 'x.f').join(' and ')))).not.toContainEqual(expect.stringContaining('nested'));
    // Only the first 50 errors get a suggestion: each compares the name with every candidate.
    const many = Array.from(
      { length: 60 },
      (_, i) => `rule R${i} "t"\n  when x.s in list countrys\n  score 1\n  reason C low "m"\nend\n`,
    ).join('');
    const errors = diagnostics(`${many}${DECIDE}`, { lists: { countries: 'NG\n' } }).filter((d) => d.includes('unknown list'));
    expect(errors).toHaveLength(60);
    expect(errors[49]).toContain('(did you mean countries?)');
    expect(errors[50]).toMatch(/unknown list countrys$/);
    // An unknown name gets a suggestion only when it is short enough to compare cheaply.
    expect(diagnostics(rule(`${'x.'.padEnd(100_000, 'q')} > 1`))).toEqual([`rules/a.rules:2:8 unknown field ${'x.'.padEnd(100_000, 'q')}`]);
  });

  it('keeps context features out of a schema that does not offer them', () => {
    const schema = { ...transactionSchema, name: 'customer', velocityKeys: {}, contextFeatures: new Set<never>() };
    const text = `rule R1 "a"\n  when count(by user over 1 hour) > 1 or daysSince(transactionData.transactionDate) > 1\n  score 1\n  reason C low "m"\nend\ndecide\n  otherwise approved\nend\n`;
    expect(diagnostics(text, { schema })).toEqual([
      'rules/a.rules:2:8 velocity aggregates are not available for customer rules',
      'rules/a.rules:2:42 daysSince is not available for customer rules',
    ]);
  });

  it('requires exactly one decide section', () => {
    expect(diagnostics('rule R1 "a"\n  when x.f\n  score 1\n  reason C low "m"\nend\n')).toEqual([
      'rules/a.rules:1:1 the ruleset has no decide section',
    ]);
    expect(diagnostics(`${DECIDE}${DECIDE}`)).toEqual(['rules/a.rules:6:1 duplicate decide section (first at rules/a.rules:1:1)']);
  });
});

describe('syntax errors', () => {
  it('name the unexpected token and what was expected, never the nearley trace', () => {
    const [line, ...rest] = diagnostics(rule('x.a >'));
    expect(rest).toEqual([]);
    expect(line).toBe('rules/a.rules:3:3 unexpected "score", expected one of "(", "-", "false", "true", a name, a number, a quoted text');
    expect(diagnostics(rule('x.a $ 3'))[0]).toMatch(/^rules\/a.rules:2:12 unexpected character "\$", expected one of /);
    expect(diagnostics('rule R1 "a"\n  when x.f')[0]).toMatch(/^rules\/a.rules:2:11 unexpected end of file, expected one of .*"end"/);
  });
});
