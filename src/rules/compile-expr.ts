// Compiles checked expressions to plain closures specialised by operand type. Missing values propagate
// (three-valued logic: `and` is false if either side is false, true only if both are true, else missing);
// a rule fires only when its condition is exactly true. No analyst text is ever evaluated as JavaScript.
import type { Decimal } from 'decimal.js';
import type { CompareOp, Expr, ExprOf } from './ast.js';
import { BUILTINS } from './builtins.js';
import { type Env, UNSET } from './env.js';
import type { FieldType, Schema } from './schema.js';
import { compareDecimals, convert, Dec, isNumeric, presentText, readPath, valueKey, type Value } from './values.js';
import type { FileList } from './file-list.js';

export type Fn = (env: Env) => Value;

const CMP_TESTS: Record<CompareOp, (c: number) => boolean> = {
  '=': (c) => c === 0,
  '!=': (c) => c !== 0,
  '<': (c) => c < 0,
  '<=': (c) => c <= 0,
  '>': (c) => c > 0,
  '>=': (c) => c >= 0,
};

/** Three-way comparison of two present values of the given type; only = and != reach the identity case. */
function comparator(type: FieldType | undefined): (a: Value, b: Value) => number {
  if (isNumeric(type)) return (a, b) => compareDecimals(a as Decimal, b as Decimal);
  if (type === 'timestamp') return (a, b) => (a as number) - (b as number);
  return (a, b) => (a === b ? 0 : 1);
}

export function literalValue(e: Expr): string | Decimal | boolean {
  if (e.kind === 'num') return new Dec(e.value);
  if (e.kind === 'neg' && e.operand.kind === 'num') return new Dec(e.operand.value).neg();
  if (e.kind === 'str' || e.kind === 'bool') return e.value;
  throw new Error(`internal error: ${e.kind} is not a literal`);
}

function isLiteral(e: Expr): boolean {
  return e.kind === 'num' || e.kind === 'str' || e.kind === 'bool' || (e.kind === 'neg' && e.operand.kind === 'num');
}

/** `x op literal`: the literal is built once at compile time and compared in place, without a closure per side. */
function compareToLiteral(l: Fn, lit: string | Decimal | boolean, op: CompareOp, type: FieldType): Fn {
  if (isNumeric(type)) {
    const k = lit as Decimal;
    const test = CMP_TESTS[op];
    return (env) => {
      const a = l(env) as Decimal | undefined;
      return a === undefined ? undefined : test(compareDecimals(a, k));
    };
  }
  // Strings and booleans: only = and != pass the checker.
  const negated = op === '!=';
  return (env) => {
    const a = l(env);
    return a === undefined ? undefined : (a === lit) !== negated;
  };
}

export interface CompileOptions {
  readonly schema: Schema;
  readonly types: ReadonlyMap<Expr, FieldType>;
  readonly fileLists: ReadonlyMap<string, FileList>;
  readonly featureId: (e: ExprOf<'velocity'>) => string;
}

export class ExprCompiler {
  private readonly slotIndex = new Map<string, number>();

  constructor(private readonly options: CompileOptions) {}

  get slotCount(): number {
    return this.slotIndex.size;
  }

  compile(e: Expr): Fn {
    switch (e.kind) {
      case 'num':
      case 'str':
      case 'bool': {
        const v = literalValue(e);
        return () => v;
      }
      case 'field':
        return this.field(e.path);
      case 'neg': {
        const f = this.compile(e.operand);
        return (env) => (f(env) as Decimal | undefined)?.neg();
      }
      case 'not': {
        const f = this.compile(e.operand);
        return (env) => {
          const v = f(env);
          return v === undefined ? undefined : !v;
        };
      }
      case 'logic':
        return this.logic(e);
      case 'arith':
        return this.arith(e);
      case 'compare': {
        const l = this.compile(e.left);
        const cmp = comparator(this.options.types.get(e.left));
        const test = CMP_TESTS[e.op];
        const type = this.options.types.get(e.left);
        if (isLiteral(e.right) && type !== undefined && type !== 'timestamp') return compareToLiteral(l, literalValue(e.right), e.op, type);
        const r = this.compile(e.right);
        return (env) => {
          const a = l(env);
          if (a === undefined) return undefined;
          const b = r(env);
          return b === undefined ? undefined : test(cmp(a, b));
        };
      }
      case 'between': {
        const [v, lo, hi] = [this.compile(e.value), this.compile(e.low), this.compile(e.high)];
        const cmp = comparator(this.options.types.get(e.value));
        const negated = e.negated;
        return (env) => {
          const x = v(env);
          const a = lo(env);
          const b = hi(env);
          if (x === undefined || a === undefined || b === undefined) return undefined;
          return (cmp(a, x) <= 0 && cmp(x, b) <= 0) !== negated;
        };
      }
      case 'inSet': {
        const v = this.compile(e.value);
        const set = new Set(e.items.map((i) => valueKey(literalValue(i))));
        const negated = e.negated;
        return (env) => {
          const x = v(env);
          return x === undefined ? undefined : set.has(valueKey(x)) !== negated;
        };
      }
      case 'inList':
        return this.inList(e);
      case 'missing': {
        const v = this.compile(e.value);
        const negated = e.negated;
        return (env) => (v(env) === undefined) !== negated;
      }
      case 'call':
        return this.call(e);
      case 'velocity': {
        const id = this.options.featureId(e);
        // A missing or blank key is no party: the aggregate is missing, not the total of every such transaction.
        const key = this.options.schema.velocityKeys[e.key]!.split('.');
        return (env) => (presentText(readPath(env.input, key)) === undefined ? undefined : env.ctx.velocity(id, env));
      }
    }
  }

  /** Reads a field once per Env; Decimal and timestamp conversions are cached in the Env's slots. */
  private field(path: string): Fn {
    const type = this.options.schema.fields[path]!;
    const segments = path.split('.');
    const [g, k] = segments;
    // Request fields are one or two levels deep; the specialised reader avoids a loop on the hot path.
    const read =
      segments.length === 2
        ? (input: unknown) => (input as Record<string, Record<string, unknown> | undefined>)[g!]?.[k!]
        : (input: unknown) => readPath(input, segments);
    if (type === 'string') {
      return (env) => presentText(read(env.input));
    }
    if (type === 'boolean') {
      return (env) => {
        const raw = read(env.input);
        return typeof raw === 'boolean' ? raw : undefined;
      };
    }
    let slot = this.slotIndex.get(path);
    if (slot === undefined) {
      slot = this.slotIndex.size;
      this.slotIndex.set(path, slot);
    }
    const i = slot;
    return (env) => {
      const cached = env.slots[i];
      if (cached !== UNSET) return cached;
      const v = convert(read(env.input), type);
      env.slots[i] = v;
      return v;
    };
  }

  private logic(e: ExprOf<'logic'>): Fn {
    const [l, r] = [this.compile(e.left), this.compile(e.right)];
    // `decisive` short-circuits: false for and, true for or.
    const decisive = e.op === 'or';
    return (env) => {
      const a = l(env);
      if (a === decisive) return decisive;
      const b = r(env);
      if (b === decisive) return decisive;
      return a === undefined || b === undefined ? undefined : !decisive;
    };
  }

  private arith(e: ExprOf<'arith'>): Fn {
    const [l, r] = [this.compile(e.left), this.compile(e.right)];
    const op = e.op;
    return (env) => {
      const a = l(env) as Decimal | undefined;
      if (a === undefined) return undefined;
      const b = r(env) as Decimal | undefined;
      if (b === undefined) return undefined;
      switch (op) {
        case '+':
          return a.plus(b);
        case '-':
          return a.minus(b);
        case '*':
          return a.times(b);
        default:
          // Division or remainder by zero has no value; the comparison using it is then not true.
          return b.isZero() ? undefined : op === '/' ? a.div(b) : a.mod(b);
      }
    };
  }

  private inList(e: ExprOf<'inList'>): Fn {
    const v = this.compile(e.value);
    const negated = e.negated;
    const fileList = this.options.fileLists.get(e.list);
    if (fileList) {
      return (env) => {
        const x = v(env);
        return x === undefined ? undefined : fileList.has(x as string) !== negated;
      };
    }
    const list = e.list;
    return (env) => {
      const x = v(env);
      return x === undefined ? undefined : env.ctx.inList(list, x as string) !== negated;
    };
  }

  private call(e: ExprOf<'call'>): Fn {
    const fn = BUILTINS[e.name]!;
    const impl = fn.impl as unknown as (rt: Env, a?: Value, b?: Value) => Value;
    if (fn.keyArg) {
      const key = (e.args[0] as ExprOf<'field'>).path;
      return (env) => impl(env, key);
    }
    const [a, b] = e.args.map((x) => this.compile(x));
    if (!b) {
      return (env) => {
        const x = a!(env);
        return x === undefined ? undefined : impl(env, x);
      };
    }
    return (env) => {
      const x = a!(env);
      if (x === undefined) return undefined;
      const y = b(env);
      return y === undefined ? undefined : impl(env, x, y);
    };
  }
}
