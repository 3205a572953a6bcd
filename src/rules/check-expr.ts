// Types the expressions of rules: fields, operators, lists, functions and velocity aggregates, each error kept
// with its file and place (checker.ts checks the ruleset around them: ids, clauses, thresholds). The inferred
// type of every expression is recorded so the compiler can pick specialised closures.
import { startOf, type Expr, type ExprOf, type Span } from './ast.js';
import { BUILTINS, VELOCITY_FNS, regex, type ParamType } from './builtins.js';
import { ownValue, RESERVED_KEYS } from '../own-keys.js';
import { didYouMean, type RuleDiagnostic } from './errors.js';
import { MINUTE_MS, type FieldType, type Schema } from './schema.js';
import { isNumeric } from './values.js';

/** Where an expression is evaluated: the current request, or a past transaction inside a velocity aggregate. */
export type Scope = 'current' | 'past';

const UNIT_MS = { minute: MINUTE_MS, hour: 60 * MINUTE_MS, day: 24 * 60 * MINUTE_MS } as const;
/** How many errors of a ruleset get a "did you mean" (Checker.suggest). */
const SUGGESTED_ERRORS = 50;

export function windowMs(w: ExprOf<'velocity'>['window']): number {
  return Number(w.amount) * UNIT_MS[w.unit];
}

function isLiteral(e: Expr): boolean {
  return e.kind === 'num' || e.kind === 'str' || e.kind === 'bool' || (e.kind === 'neg' && e.operand.kind === 'num');
}

/** One check of a ruleset: the errors found so far, in which file, and the type of every expression typed. */
export class Checker {
  readonly errors: RuleDiagnostic[] = [];
  readonly types = new Map<Expr, FieldType>();
  private readonly fileLists: Set<string>;
  file = '';

  constructor(
    private readonly schema: Schema,
    fileLists: Iterable<string>,
  ) {
    this.fileLists = new Set(fileLists);
  }

  error(span: Span, message: string): undefined {
    this.errors.push({ file: this.file, line: span.line, col: span.col, message });
    return undefined;
  }

  /**
   * didYouMean for the first errors only: a reader acts on those, and each suggestion compares the name with every
   * candidate (uploaded list files among them), which thousands of unknown names would make seconds of work.
   */
  suggest(word: string, candidates: Iterable<string>): string {
    return this.errors.length < SUGGESTED_ERRORS ? didYouMean(word, candidates) : '';
  }

  /**
   * False (with an error) for a name that would shadow Object.prototype's members wherever it becomes a key: rule
   * hits, list and window tables, explanations are keyed by these names.
   */
  named(name: string, span: Span, what: string): boolean {
    const reserved = name.split('.').find((part) => RESERVED_KEYS.has(part));
    if (reserved === undefined) return true;
    this.error(span, `${reserved} cannot be used as ${what}: ${[...RESERVED_KEYS].join(', ')} are reserved`);
    return false;
  }

  expect(e: Expr, scope: Scope, want: ParamType, what: string): FieldType | undefined {
    const t = this.type(e, scope);
    if (t === undefined) return undefined;
    const ok = want === 'numeric' || want === 'decimal' ? isNumeric(t) : t === want;
    return ok ? t : this.error(startOf(e), `${what} must be ${want === 'numeric' ? 'a number' : want}, got ${t}`);
  }

  type(e: Expr, scope: Scope): FieldType | undefined {
    const t = this.infer(e, scope);
    if (t !== undefined) this.types.set(e, t);
    return t;
  }

  private infer(e: Expr, scope: Scope): FieldType | undefined {
    switch (e.kind) {
      case 'num':
        return e.value.includes('.') ? 'decimal' : 'integer';
      case 'str':
        return 'string';
      case 'bool':
        return 'boolean';
      case 'field': {
        if (!this.named(e.path, e.span, 'a field name')) return undefined;
        const t = ownValue(this.schema.fields, e.path);
        return t ?? this.error(e.span, `unknown field ${e.path}${this.suggest(e.path, Object.keys(this.schema.fields))}`);
      }
      case 'neg':
        return this.expect(e.operand, scope, 'numeric', 'operand of -');
      case 'not':
        return this.expect(e.operand, scope, 'boolean', 'operand of not') && 'boolean';
      case 'logic': {
        const l = this.expect(e.left, scope, 'boolean', `left side of ${e.op}`);
        const r = this.expect(e.right, scope, 'boolean', `right side of ${e.op}`);
        return l && r && 'boolean';
      }
      case 'arith': {
        const l = this.expect(e.left, scope, 'numeric', `left side of ${e.op}`);
        const r = this.expect(e.right, scope, 'numeric', `right side of ${e.op}`);
        if (!l || !r) return undefined;
        return l === 'integer' && r === 'integer' && e.op !== '/' ? 'integer' : 'decimal';
      }
      case 'compare':
        return this.comparison(e, scope);
      case 'between': {
        const t = this.ordered(e.value, scope, 'between');
        const ok = [e.low, e.high].every((b) => this.sameType(t, b, scope, e.span, 'between'));
        return t && ok ? 'boolean' : undefined;
      }
      case 'inSet': {
        const t = this.type(e.value, scope);
        for (const item of e.items) {
          if (!isLiteral(item)) this.error(item.span, 'the values in [...] must be literal values');
          else this.sameType(t, item, scope, item.span, 'in [...]');
        }
        return 'boolean';
      }
      case 'inList':
        this.expect(e.value, scope, 'string', `value tested against list ${e.list}`);
        this.list(e, scope);
        return 'boolean';
      case 'missing':
        this.type(e.value, scope);
        return 'boolean';
      case 'call':
        return this.call(e, scope);
      case 'velocity':
        return this.velocity(e, scope);
    }
  }

  private comparison(e: ExprOf<'compare'>, scope: Scope): FieldType | undefined {
    if (e.op === '=' || e.op === '!=') {
      const t = this.type(e.left, scope);
      return this.sameType(t, e.right, scope, e.span, e.op) ? 'boolean' : undefined;
    }
    const t = this.ordered(e.left, scope, e.op);
    return this.sameType(t, e.right, scope, e.span, e.op) && t ? 'boolean' : undefined;
  }

  /** Types `e`, which must be a number or a timestamp because `op` orders it. */
  private ordered(e: Expr, scope: Scope, op: string): FieldType | undefined {
    const t = this.type(e, scope);
    if (t === undefined || isNumeric(t) || t === 'timestamp') return t;
    return this.error(startOf(e), `${op} needs numbers or timestamps, got ${t}`);
  }

  private sameType(t: FieldType | undefined, other: Expr, scope: Scope, span: Span, op: string): boolean {
    const u = this.type(other, scope);
    if (t === undefined || u === undefined) return false;
    if (t === u || (isNumeric(t) && isNumeric(u))) return true;
    this.error(span, `cannot compare ${t} with ${u} using ${op}`);
    return false;
  }

  private list(e: ExprOf<'inList'>, scope: Scope): void {
    if (!this.named(e.list, e.listSpan, 'a list name')) return;
    if (this.fileLists.has(e.list)) return;
    if (Object.hasOwn(this.schema.engineLists, e.list)) {
      if (scope === 'past') this.error(e.listSpan, `list ${e.list} changes over time and cannot be used inside a velocity filter`);
      return;
    }
    const known = [...this.fileLists, ...Object.keys(this.schema.engineLists)];
    this.error(e.listSpan, `unknown list ${e.list}${this.suggest(e.list, known)}`);
  }

  private feature(span: Span, what: string, feature: string | undefined, scope: Scope): boolean {
    if (feature === undefined) return true;
    if (scope === 'past') return !this.error(span, `${what} cannot be used inside a velocity aggregate`);
    if (this.schema.contextFeatures.has(feature as never)) return true;
    return !this.error(span, `${what} is not available for ${this.schema.name} rules`);
  }

  private call(e: ExprOf<'call'>, scope: Scope): FieldType | undefined {
    const fn = ownValue(BUILTINS, e.name);
    if (!fn) return this.error(e.span, `unknown function ${e.name}${this.suggest(e.name, Object.keys(BUILTINS))}`);
    if (e.args.length !== fn.params.length) {
      return this.error(e.span, `${e.name} takes ${fn.params.length} argument${fn.params.length === 1 ? '' : 's'}, got ${e.args.length}`);
    }
    if (!this.feature(e.span, e.name, fn.feature, scope)) return undefined;
    if (fn.keyArg) {
      const names = Object.keys(this.schema[fn.keyArg]);
      const arg = e.args[0]!;
      if (arg.kind !== 'field' || !names.includes(arg.path)) {
        const got = arg.kind === 'field' ? `${arg.path}${this.suggest(arg.path, names)}` : 'an expression';
        return this.error(arg.span, `${e.name} takes one of ${names.join(', ')}; got ${got}`);
      }
      return fn.returns;
    }
    let ok = true;
    e.args.forEach((arg, i) => {
      ok = this.expect(arg, scope, fn.params[i]!, `argument ${i + 1} of ${e.name}`) !== undefined && ok;
    });
    const re = fn.regexArg === undefined ? undefined : e.args[fn.regexArg]!;
    if (re) ok = this.regex(re, e.name) && ok;
    return ok ? fn.returns : undefined;
  }

  private regex(arg: Expr, fn: string): boolean {
    if (arg.kind !== 'str') return !this.error(arg.span, `the pattern of ${fn} must be a quoted text`);
    try {
      regex(arg.value);
      return true;
    } catch (err) {
      return !this.error(arg.span, `invalid pattern: ${(err as Error).message}`);
    }
  }

  private velocity(e: ExprOf<'velocity'>, scope: Scope): FieldType | undefined {
    if (scope === 'past') return this.error(e.span, 'velocity aggregates cannot be nested');
    const keys = Object.keys(this.schema.velocityKeys);
    if (keys.length === 0) return this.error(e.span, `velocity aggregates are not available for ${this.schema.name} rules`);
    const fn = ownValue(VELOCITY_FNS, e.fn);
    if (!fn) return this.error(e.span, `unknown aggregate ${e.fn}${this.suggest(e.fn, Object.keys(VELOCITY_FNS))}`);
    let ok = true;
    if (fn.arg === 'none' && e.arg) ok = !this.error(e.arg.span, `${e.fn} takes no value: write ${e.fn}(by ${e.key} over ...)`);
    if (fn.arg !== 'none' && !e.arg)
      ok = !this.error(e.span, `${e.fn} needs a value, e.g. ${e.fn}(transactionData.amount by ${e.key} over ...)`);
    if (e.arg && fn.arg === 'numeric') ok = this.expect(e.arg, 'past', 'numeric', `value of ${e.fn}`) !== undefined && ok;
    if (e.arg && fn.arg === 'any') ok = this.type(e.arg, 'past') !== undefined && ok;
    if (!this.named(e.key, e.keySpan, 'a velocity key')) ok = false;
    else if (!keys.includes(e.key))
      ok = !this.error(e.keySpan, `unknown key ${e.key}${this.suggest(e.key, keys)}; keys are ${keys.join(', ')}`) && ok;
    const ms = windowMs(e.window);
    if (e.window.amount.includes('.') || ms <= 0) {
      ok = !this.error(e.window.span, `bad window ${e.window.amount} ${e.window.unit}s: use a whole number of at least 1`) && ok;
    } else if (ms > this.schema.maxWindowMs) {
      ok =
        !this.error(
          e.window.span,
          `bad window ${e.window.amount} ${e.window.unit}s: the longest window is ${this.schema.maxWindowMs / UNIT_MS.day} days`,
        ) && ok;
    }
    if (e.filter) ok = this.expect(e.filter, 'past', 'boolean', 'where filter') !== undefined && ok;
    return ok ? fn.returns : undefined;
  }
}
