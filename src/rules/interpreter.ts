// A deliberately plain tree-walking evaluator: the executable specification the compiled closures are
// property-tested against. It decides everything from run-time values (no type map, no caching, no
// specialisation), so a disagreement points at an optimisation in compile-expr.ts.
import type { Decimal } from 'decimal.js';
import type { Expr } from './ast.js';
import { BUILTINS, type Runtime } from './builtins.js';
import { literalValue } from './compile-expr.js';
import { featureId } from './features.js';
import type { Schema } from './schema.js';
import { compareValues, convert, readPath, valuesEqual, type Value } from './values.js';
import type { FileList } from './file-list.js';

export interface InterpreterScope extends Runtime {
  readonly input: unknown;
  readonly schema: Schema;
  readonly fileLists: ReadonlyMap<string, FileList>;
}

/** Kleene conjunction/disjunction over true / false / undefined (missing). */
function kleene(op: 'and' | 'or', a: Value, b: Value): boolean | undefined {
  const values = [a, b];
  if (op === 'and') {
    if (values.includes(false)) return false;
    return values.includes(undefined) ? undefined : true;
  }
  if (values.includes(true)) return true;
  return values.includes(undefined) ? undefined : false;
}

function compare(op: string, a: Value, b: Value): boolean {
  if (op === '=') return valuesEqual(a, b);
  if (op === '!=') return !valuesEqual(a, b);
  const c = compareValues(a, b);
  return op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : c >= 0;
}

function arith(op: string, a: Decimal, b: Decimal): Decimal | undefined {
  if (op === '+') return a.plus(b);
  if (op === '-') return a.minus(b);
  if (op === '*') return a.times(b);
  if (b.isZero()) return undefined;
  return op === '/' ? a.div(b) : a.mod(b);
}

/** Text that is empty or only white space reads as missing. */
const BLANK = /^\s*$/;

function field(path: string, s: InterpreterScope): Value {
  const v = convert(readPath(s.input, path.split('.')), s.schema.fields[path]!);
  return typeof v === 'string' && BLANK.test(v) ? undefined : v;
}

export function interpret(e: Expr, s: InterpreterScope): Value {
  const ev = (x: Expr): Value => interpret(x, s);
  switch (e.kind) {
    case 'num':
    case 'str':
    case 'bool':
      return literalValue(e);
    case 'field':
      return field(e.path, s);
    case 'neg': {
      const v = ev(e.operand);
      return v === undefined ? undefined : (v as Decimal).negated();
    }
    case 'not': {
      const v = ev(e.operand);
      return v === undefined ? undefined : v === false;
    }
    case 'logic':
      return kleene(e.op, ev(e.left), ev(e.right));
    case 'arith': {
      const [a, b] = [ev(e.left), ev(e.right)];
      return a === undefined || b === undefined ? undefined : arith(e.op, a as Decimal, b as Decimal);
    }
    case 'compare': {
      const [a, b] = [ev(e.left), ev(e.right)];
      return a === undefined || b === undefined ? undefined : compare(e.op, a, b);
    }
    case 'between': {
      const [v, lo, hi] = [ev(e.value), ev(e.low), ev(e.high)];
      if (v === undefined || lo === undefined || hi === undefined) return undefined;
      const inside = compare('>=', v, lo) && compare('<=', v, hi);
      return e.negated ? !inside : inside;
    }
    case 'inSet': {
      const v = ev(e.value);
      if (v === undefined) return undefined;
      const found = e.items.some((i) => valuesEqual(v, literalValue(i)));
      return e.negated ? !found : found;
    }
    case 'inList': {
      const v = ev(e.value);
      if (v === undefined) return undefined;
      const fileList = s.fileLists.get(e.list);
      const found = fileList ? fileList.has(v as string) : s.ctx.inList(e.list, v as string);
      return e.negated ? !found : found;
    }
    case 'missing': {
      const absent = ev(e.value) === undefined;
      return e.negated ? !absent : absent;
    }
    case 'call': {
      const fn = BUILTINS[e.name]!;
      const impl = fn.impl as unknown as (rt: Runtime, ...args: Value[]) => Value;
      if (fn.keyArg) return impl(s, (e.args[0] as Extract<Expr, { kind: 'field' }>).path);
      const args = e.args.map(ev);
      return args.includes(undefined) ? undefined : impl(s, ...args);
    }
    case 'velocity':
      // An aggregate over a missing key (absent, mistyped or blank) is missing.
      return field(s.schema.velocityKeys[e.key]!, s) === undefined ? undefined : s.ctx.velocity(featureId(e));
  }
}
