import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkRuleset, Dec, parseRules, printExpr, printFile, type Expr, type FeatureContext } from '../../src/rules/index.js';
import { ExprCompiler } from '../../src/rules/compile-expr.js';
import { Env } from '../../src/rules/env.js';
import { featureId } from '../../src/rules/features.js';
import { interpret } from '../../src/rules/interpreter.js';
import { inputs, ruleFiles, syntax, typed, withoutSpans } from './arbitraries.js';
import { compileText, DECIDE, testSchema } from './helpers.js';

const fileLists = new Map([['countries', new Set(['NG', 'GB'])]]);

function contextFor(velocity: Record<string, Decimal | undefined>): FeatureContext {
  return {
    now: Date.UTC(2024, 5, 1),
    inList: (list, value) => list === 'banned' && value === 'a',
    velocity: (id) => velocity[id],
    firstSeen: () => true,
    lastSeen: () => undefined,
  };
}

/** Checks `expr` by wrapping it in a one-rule ruleset, so the compiler gets the checker's type map. */
function compiled(expr: Expr): (input: unknown, ctx: FeatureContext) => unknown {
  const text = `rule R "t"\n  when ${printExpr(expr)}\n  score 1\n  reason C low "m"\nend\ndecide\n  otherwise low\nend\n`;
  const parsed = parseRules('p.rules', text);
  const checked = checkRuleset([parsed], { schema: testSchema, fileLists: fileLists.keys() });
  const compiler = new ExprCompiler({ schema: testSchema, types: checked.types, fileLists, featureId });
  const when = checked.rules[0]!.when;
  const fn = compiler.compile(when);
  return (input, ctx) => ({ when, value: fn(new Env(input, ctx, 0, compiler.slotCount)) });
}

const same = (a: unknown, b: unknown): boolean => (a instanceof Decimal && b instanceof Decimal ? a.eq(b) : a === b);

describe('compiled closures', () => {
  it('agree with the reference interpreter on random rules and inputs', () => {
    const velocityValues = fc.record({
      count: fc.option(
        fc.integer({ min: 0, max: 20 }).map((n) => new Dec(n)),
        { nil: undefined },
      ),
      sum: fc.option(
        fc.constantFrom('0', '10.5', '-3').map((s) => new Dec(s)),
        { nil: undefined },
      ),
      distinct: fc.option(
        fc.integer({ min: 0, max: 3 }).map((n) => new Dec(n)),
        { nil: undefined },
      ),
    });
    fc.assert(
      fc.property(typed.bool, fc.array(inputs, { minLength: 1, maxLength: 5 }), velocityValues, (expr, samples, v) => {
        const run = compiled(expr);
        const ctx = contextFor({
          'count(by user over 10 minutes)': v.count,
          'sum(x.a by user over 10 minutes)': v.sum,
          'distinct(x.t by user over 10 minutes)': v.distinct,
        });
        for (const input of samples) {
          const { when, value } = run(input, ctx) as { when: Expr; value: unknown };
          const expected = interpret(when, { input, ctx, schema: testSchema, fileLists, utcOffsetMs: 0 });
          expect(same(value, expected), `${printExpr(when)} on ${JSON.stringify(input)}: ${String(value)} vs ${String(expected)}`).toBe(
            true,
          );
        }
      }),
      { numRuns: 400 },
    );
  });
});

describe('printer', () => {
  it('prints expressions that parse back to the same tree', () => {
    fc.assert(
      fc.property(syntax.expr, (expr) => {
        const text = `rule R "t"\n  when ${printExpr(expr)}\nend\n`;
        const parsed = parseRules('p.rules', text).items[0];
        expect(parsed?.kind === 'rule' && withoutSpans(parsed.clauses[0]?.kind === 'when' && parsed.clauses[0].expr)).toBe(
          withoutSpans(expr),
        );
      }),
      { numRuns: 500 },
    );
  });

  it('prints whole files that parse back to the same tree', () => {
    fc.assert(
      fc.property(ruleFiles, (file) => {
        expect(withoutSpans(parseRules(file.file, printFile(file)))).toBe(withoutSpans(file));
      }),
      { numRuns: 200 },
    );
  });
});

describe('decimal arithmetic', () => {
  it('is exact for money: sums of 2-decimal amounts equal integer-cent sums', () => {
    const rules = compileText(
      'rule R "t"\n  when x.a + x.b = x.n / 100\n  score 1\n  reason C low "m"\nend\ndecide\n  otherwise low\nend\n',
    );
    fc.assert(
      fc.property(fc.integer({ min: -1e9, max: 1e9 }), fc.integer({ min: -1e9, max: 1e9 }), (a, b) => {
        const input = { x: { a: a / 100, b: b / 100, n: a + b } };
        const fired = rules.evaluate(input, contextFor({})).fired.map((f) => f.id);
        expect(fired).toEqual(['R']);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps the amount the client wrote (0.1 + 0.2 = 0.3)', () => {
    const rules = compileText('rule R "t"\n  when x.a + x.b = 0.3\n  score 1\n  reason C low "m"\nend\ndecide\n  otherwise low\nend\n');
    expect(rules.evaluate({ x: { a: 0.1, b: 0.2 } }, contextFor({})).fired).toHaveLength(1);
    expect(0.1 + 0.2 === 0.3).toBe(false);
  });
});

describe('a ruleset evaluated in parts', () => {
  const flag: Expr = { kind: 'field', path: 'x.f', span: { line: 0, col: 0 } };
  it('concludes as the whole: some rules taken as they fired, only() of the others evaluated (a shadow does so)', () => {
    const rule = fc.record({
      when: typed.bool,
      score: fc.constantFrom('-10', '0', '15', '40', '85.5'),
      severity: fc.constantFrom('low', 'medium', 'high', 'critical'),
      force: fc.constantFrom('', '  force medium\n', '  force high\n'),
    });
    fc.assert(
      fc.property(
        fc.array(rule, { minLength: 1, maxLength: 5 }),
        fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
        inputs,
        (rules, taken, input) => {
          // The last rule can reach every threshold, which the checker requires.
          const text = [...rules, { when: flag, score: '100', severity: 'low', force: '' }]
            .map(
              (r, i) =>
                `rule R${i} "t"\n  when ${printExpr(r.when)}\n  score ${r.score}\n${r.force}  reason C${i} ${r.severity} "m"\nend\n`,
            )
            .join('');
          const ruleset = compileText(`${text}${DECIDE}`, { lists: { countries: 'NG\nGB\n' } });
          const whole = ruleset.evaluate(input, contextFor({}));
          const ids = ruleset.rules.map((r) => r.id);
          const known = new Set(ids.filter((_, i) => taken[i]));
          const rest = ruleset.only(new Set(ids.filter((id) => !known.has(id)))).evaluate(input, contextFor({}));
          const fired = new Map([...whole.fired.filter((f) => known.has(f.id)), ...rest.fired].map((f) => [f.id, f.observed]));
          const parts = ruleset.concluded(fired);
          const summary = (e: typeof whole) => ({
            action: e.action,
            riskScore: e.riskScore,
            reason: e.reason,
            fired: e.fired.map((f) => f.id),
          });
          expect(summary(parts)).toEqual(summary(whole));
          expect(rest.fired.every((f) => !known.has(f.id))).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});
