// fast-check generators: well-typed expressions over testSchema (for compiled-vs-interpreter) and
// arbitrary syntax trees (for print/parse round trips). Spans are dummies; comparisons strip them.
import fc from 'fast-check';
import type { Clause, Expr, RuleFile } from '../../src/rules/index.js';

const S = { line: 0, col: 0 };
const field = (path: string): Expr => ({ kind: 'field', path, span: S });
const digits = fc.stringMatching(/^[0-9]{1,4}$/);
const numLit = fc
  .tuple(digits, fc.option(fc.stringMatching(/^[0-9]{1,3}$/), { nil: undefined }))
  .map(([i, f]): Expr => ({ kind: 'num', value: f === undefined ? i : `${i}.${f}`, span: S }));
const strings = ['a', 'b', 'NG', 'GB', ''];
/** Blank texts, which the rules read as missing (as a switch sends `vasReceiver: ""` when no VAS applies). */
const blanks = [' ', '\t ', '\u00a0'];
const strLit = fc.constantFrom(...strings).map((value): Expr => ({ kind: 'str', value, span: S }));

/** Well-typed expressions of testSchema, by result type. */
export const typed = fc.letrec<{ num: Expr; str: Expr; bool: Expr }>((tie) => ({
  num: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    numLit,
    fc.constantFrom('x.a', 'x.b', 'x.n').map(field),
    tie('num').map((operand): Expr => ({ kind: 'neg', operand, span: S })),
    fc
      .record({ op: fc.constantFrom('+', '-', '*', '/', '%' as const), left: tie('num'), right: tie('num') })
      .map((r): Expr => ({ kind: 'arith', ...r, span: S })),
    fc
      .tuple(fc.constantFrom('abs', 'min', 'max'), tie('num'), tie('num'))
      .map(([name, a, b]): Expr => ({ kind: 'call', name, args: name === 'abs' ? [a] : [a, b], span: S })),
    fc.constantFrom('count', 'sum', 'distinct').map(
      (fn): Expr => ({
        kind: 'velocity',
        fn,
        arg: fn === 'count' ? null : field(fn === 'sum' ? 'x.a' : 'x.t'),
        key: 'user',
        keySpan: S,
        window: { amount: '10', unit: 'minute', span: S },
        filter: null,
        span: S,
      }),
    ),
  ),
  str: fc.oneof(
    { depthSize: 'small' },
    strLit,
    fc.constantFrom('x.s', 'x.t', 'y.u').map(field),
    tie('str').map((a): Expr => ({ kind: 'call', name: 'lower', args: [a], span: S })),
  ),
  bool: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.boolean().map((value): Expr => ({ kind: 'bool', value, span: S })),
    fc.constantFrom('x.f', 'x.g').map(field),
    tie('bool').map((operand): Expr => ({ kind: 'not', operand, span: S })),
    fc
      .record({ op: fc.constantFrom('and', 'or' as const), left: tie('bool'), right: tie('bool') })
      .map((r): Expr => ({ kind: 'logic', ...r, span: S })),
    fc
      .record({ op: fc.constantFrom('=', '!=', '<', '<=', '>', '>=' as const), left: tie('num'), right: tie('num') })
      .map((r): Expr => ({ kind: 'compare', ...r, span: S })),
    fc
      .record({ op: fc.constantFrom('=', '!=' as const), left: tie('str'), right: tie('str') })
      .map((r): Expr => ({ kind: 'compare', ...r, span: S })),
    fc
      .record({ negated: fc.boolean(), value: tie('num'), low: tie('num'), high: tie('num') })
      .map((r): Expr => ({ kind: 'between', ...r, span: S })),
    fc
      .record({ negated: fc.boolean(), value: tie('str'), items: fc.array(strLit, { minLength: 1, maxLength: 3 }) })
      .map((r): Expr => ({ kind: 'inSet', ...r, span: S })),
    fc
      .record({ negated: fc.boolean(), value: tie('str'), list: fc.constantFrom('countries', 'banned') })
      .map((r): Expr => ({ kind: 'inList', ...r, listSpan: S, span: S })),
    fc.record({ negated: fc.boolean(), value: fc.oneof(tie('num'), tie('str')) }).map((r): Expr => ({ kind: 'missing', ...r, span: S })),
    fc.tuple(tie('str'), tie('str')).map(([a, b]): Expr => ({ kind: 'call', name: 'contains', args: [a, b], span: S })),
  ),
}));

/** Random request-shaped inputs for testSchema, with missing and mistyped values. */
export const inputs = fc.record(
  {
    x: fc.record(
      {
        a: fc.oneof(fc.constantFrom(0, 1, -2.5, 0.1, 0.2, 1e21, 3), fc.double({ noNaN: true, noDefaultInfinity: true })),
        b: fc.constantFrom(0, 0.3, 7, -1, '12.5', 'x'),
        n: fc.integer({ min: -5, max: 5 }),
        s: fc.constantFrom(...strings, ...blanks, 'A'),
        t: fc.constantFrom(...strings, ...blanks),
        f: fc.boolean(),
        g: fc.constantFrom(true, false, 'true'),
      },
      { requiredKeys: [] },
    ),
    y: fc.record({ u: fc.constantFrom(...strings, ...blanks) }, { requiredKeys: [] }),
  },
  { requiredKeys: [] },
);

const names = fc.constantFrom('x.a', 'transactionData.amount', 'blacklist.users', 'a_b', 'ruleX');
const anyString = fc.string({ maxLength: 6, unit: 'binary' }).filter((s) => !s.includes('\r'));

/** Any syntax tree the grammar can express, typed or not. */
export const syntax = fc.letrec<{ expr: Expr }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    numLit,
    anyString.map((value): Expr => ({ kind: 'str', value, span: S })),
    fc.boolean().map((value): Expr => ({ kind: 'bool', value, span: S })),
    names.map(field),
    tie('expr').map((operand): Expr => ({ kind: 'neg', operand, span: S })),
    tie('expr').map((operand): Expr => ({ kind: 'not', operand, span: S })),
    fc
      .record({ op: fc.constantFrom('+', '-', '*', '/', '%' as const), left: tie('expr'), right: tie('expr') })
      .map((r): Expr => ({ kind: 'arith', ...r, span: S })),
    fc
      .record({ op: fc.constantFrom('and', 'or' as const), left: tie('expr'), right: tie('expr') })
      .map((r): Expr => ({ kind: 'logic', ...r, span: S })),
    fc
      .record({ op: fc.constantFrom('=', '!=', '<', '<=', '>', '>=' as const), left: tie('expr'), right: tie('expr') })
      .map((r): Expr => ({ kind: 'compare', ...r, span: S })),
    fc
      .record({ negated: fc.boolean(), value: tie('expr'), low: tie('expr'), high: tie('expr') })
      .map((r): Expr => ({ kind: 'between', ...r, span: S })),
    fc
      .record({ negated: fc.boolean(), value: tie('expr'), items: fc.array(tie('expr'), { minLength: 1, maxLength: 3 }) })
      .map((r): Expr => ({ kind: 'inSet', ...r, span: S })),
    fc
      .record({ negated: fc.boolean(), value: tie('expr'), list: names })
      .map((r): Expr => ({ kind: 'inList', ...r, listSpan: S, span: S })),
    fc.record({ negated: fc.boolean(), value: tie('expr') }).map((r): Expr => ({ kind: 'missing', ...r, span: S })),
    fc.record({ name: names, args: fc.array(tie('expr'), { maxLength: 3 }) }).map((r): Expr => ({ kind: 'call', ...r, span: S })),
    fc
      .record({
        fn: fc.constantFrom('count', 'sum', 'max'),
        arg: fc.option(tie('expr'), { nil: null }),
        key: names,
        amount: fc.stringMatching(/^[1-9][0-9]{0,2}$/),
        unit: fc.constantFrom('minute', 'hour', 'day' as const),
        filter: fc.option(tie('expr'), { nil: null }),
      })
      .map(({ amount, unit, ...r }): Expr => ({ kind: 'velocity', ...r, keySpan: S, window: { amount, unit, span: S }, span: S })),
  ),
}));

const clause: fc.Arbitrary<Clause> = fc.oneof(
  syntax.expr.map((expr): Clause => ({ kind: 'when', expr, span: S })),
  fc.tuple(fc.boolean(), digits).map(([neg, v]): Clause => ({ kind: 'score', value: `${neg ? '-' : ''}${v}`, span: S })),
  fc.record({ code: names, severity: names, message: anyString }).map((r): Clause => ({ kind: 'reason', ...r, severitySpan: S, span: S })),
  fc.array(names, { minLength: 1, maxLength: 3 }).map((tags): Clause => ({ kind: 'tags', tags, span: S })),
  names.map((action): Clause => ({ kind: 'force', action, span: S })),
);

export const ruleFiles: fc.Arbitrary<RuleFile> = fc
  .array(
    fc.oneof(
      fc
        .record({ id: names, title: anyString, clauses: fc.array(clause, { maxLength: 4 }) })
        .map((r) => ({ kind: 'rule' as const, ...r, idSpan: S, span: S })),
      fc
        .record({
          thresholds: fc.array(
            fc.record({ action: names, at: digits }).map((t) => ({ ...t, span: S })),
            { maxLength: 3 },
          ),
          otherwise: names,
        })
        .map((r) => ({ kind: 'decide' as const, ...r, otherwiseSpan: S, span: S })),
    ),
    { maxLength: 3 },
  )
  .map((items) => ({ file: 'gen.rules', items }));

/** JSON of a tree without positions and with sorted keys, for structural equality. */
export function withoutSpans(tree: unknown): string {
  return JSON.stringify(tree, (k, v: unknown) => {
    if (k.endsWith('pan')) return undefined;
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    return Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)));
  });
}
