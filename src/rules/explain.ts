// Observations behind a fired rule: for every test in its condition, the printed test, whether it held and
// the value of each non-literal operand (the velocity count, the amount, the limit...). Only computed for
// rules that fired, so the hot path pays nothing for it.
import { children, type Expr } from './ast.js';
import type { Fn } from './compile-expr.js';
import type { Env } from './env.js';
import { printExpr } from './printer.js';
import { showValue } from './values.js';

export interface Observation {
  readonly test: string;
  /** true / false, or null when a value it needs is missing. */
  readonly holds: boolean | null;
  readonly values: Readonly<Record<string, string | boolean | null>>;
}

interface Atom {
  readonly test: string;
  readonly fn: Fn;
  readonly operands: readonly { readonly text: string; readonly fn: Fn }[];
}

const PREDICATES = new Set<Expr['kind']>(['compare', 'between', 'inSet', 'inList', 'missing']);
const CONSTANT = new Set<Expr['kind']>(['num', 'str', 'bool']);

export type Explainer = (env: Env) => Observation[];

export function explainer(condition: Expr, compile: (e: Expr) => Fn): Explainer {
  const atoms: Atom[] = [];
  const visit = (e: Expr): void => {
    if (e.kind === 'logic' || e.kind === 'not') {
      children(e).forEach(visit);
      return;
    }
    const operands = PREDICATES.has(e.kind) ? children(e).filter((c) => !CONSTANT.has(c.kind) && c.kind !== 'neg') : [];
    atoms.push({ test: printExpr(e), fn: compile(e), operands: operands.map((o) => ({ text: printExpr(o), fn: compile(o) })) });
  };
  visit(condition);
  return (env) =>
    atoms.map((a) => {
      const holds = a.fn(env);
      return {
        test: a.test,
        holds: holds === undefined ? null : holds === true,
        values: Object.fromEntries(a.operands.map((o) => [o.text, showValue(o.fn(env))])),
      };
    });
}
