// Post-processors called by the generated nearley parser. They only shape tokens into AST nodes; all
// validation happens in the checker, where errors can be collected instead of aborting the parse.
import type moo from 'moo';
import type { ArithOp, Clause, CompareOp, DecideNode, Expr, RuleNode, Span, Threshold, TimeUnit } from './ast.js';

type Tok = moo.Token;
// nearley hands post-processors untyped arrays of tokens and sub-results.
type D = any[];

const at = (t: Tok): Span => ({ line: t.line, col: t.col });

export const num = ([t]: D): Expr => ({ kind: 'num', value: (t as Tok).value, span: at(t) });
export const str = ([t]: D): Expr => ({ kind: 'str', value: (t as Tok).value, span: at(t) });
export const bool = ([t]: D): Expr => ({ kind: 'bool', value: (t as Tok).type === 'TRUE', span: at(t) });
export const field = ([t]: D): Expr => ({ kind: 'field', path: (t as Tok).value, span: at(t) });
export const neg = ([t, operand]: D): Expr => ({ kind: 'neg', operand, span: at(t) });
export const not = ([t, operand]: D): Expr => ({ kind: 'not', operand, span: at(t) });
export const paren = (d: D): Expr => d[1];

export const arith = ([left, [op], right]: D): Expr => ({ kind: 'arith', op: op.value as ArithOp, left, right, span: at(op) });
export const logic = ([left, op, right]: D): Expr => ({ kind: 'logic', op: op.value as 'and' | 'or', left, right, span: at(op) });
export const compare = ([left, [op], right]: D): Expr => ({ kind: 'compare', op: op.value as CompareOp, left, right, span: at(op) });

// The optional `not` of `x not between ...` / `x not in ...` arrives as null or [token].
const negation = (n: Tok[] | null): boolean => n !== null;

export const between = ([value, n, t, low, , high]: D): Expr => ({ kind: 'between', negated: negation(n), value, low, high, span: at(t) });
export const inSet = ([value, n, t, , items]: D): Expr => ({ kind: 'inSet', negated: negation(n), value, items, span: at(t) });
export const inList = ([value, n, t, , list]: D): Expr => ({
  kind: 'inList',
  negated: negation(n),
  value,
  list: (list as Tok).value,
  listSpan: at(list),
  span: at(t),
});
export const missing = ([value, t, n]: D): Expr => ({ kind: 'missing', negated: negation(n), value, span: at(t) });

export const call = ([name, , args]: D): Expr => ({ kind: 'call', name: (name as Tok).value, args: args ?? [], span: at(name) });
export const velocity = ([name, , arg, , key, , amount, unit, filter]: D): Expr => ({
  kind: 'velocity',
  fn: (name as Tok).value,
  arg,
  key: (key as Tok).value,
  keySpan: at(key),
  window: { amount: (amount as Tok).value, unit: (unit as Tok).value.replace(/s$/, '') as TimeUnit, span: at(amount) },
  filter: filter ? filter[1] : null,
  span: at(name),
});

export const list = ([first, rest]: D): unknown[] => [first, ...(rest as unknown[][]).map((r) => r[1])];

export const rule = ([t, id, title, clauses]: D): RuleNode => ({
  kind: 'rule',
  id: (id as Tok).value,
  idSpan: at(id),
  title: (title as Tok).value,
  clauses,
  span: at(t),
});
export const when = ([t, expr]: D): Clause => ({ kind: 'when', expr, span: at(t) });
export const score = ([t, sign, n]: D): Clause => ({ kind: 'score', value: (sign ? '-' : '') + (n as Tok).value, span: at(t) });
export const reason = ([t, code, severity, message]: D): Clause => ({
  kind: 'reason',
  code: (code as Tok).value,
  severity: (severity as Tok).value,
  severitySpan: at(severity),
  message: (message as Tok).value,
  span: at(t),
});
export const tags = ([t, names]: D): Clause => ({ kind: 'tags', tags: (names as Tok[]).map((n) => n.value), span: at(t) });
export const force = ([t, action]: D): Clause => ({ kind: 'force', action: (action as Tok).value, span: at(t) });

export const decide = ([t, thresholds, , otherwise]: D): DecideNode => ({
  kind: 'decide',
  thresholds,
  otherwise: (otherwise as Tok).value,
  otherwiseSpan: at(otherwise),
  span: at(t),
});
export const threshold = ([action, , n]: D): Threshold => ({ action: (action as Tok).value, at: (n as Tok).value, span: at(action) });
