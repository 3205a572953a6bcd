// Extracts the state a ruleset needs. Each distinct velocity aggregate (function, value, filter, key, window)
// becomes one FeatureSpec whose id is its canonical text, so `over 60 minutes` and `over 1 hour` share state;
// the firstSeen pairs and lastSeen keys its rules name are the history it reads.
import type { Expr, ExprOf, TimeUnit, VelocityFn } from './ast.js';
import { walkExpr } from './ast.js';
import { BUILTINS } from './builtins.js';
import { windowMs } from './check-expr.js';
import type { Fn } from './compile-expr.js';
import type { Env } from './env.js';
import type { HistoryReads } from './history.js';
import { printExpr } from './printer.js';
import { MINUTE_MS } from './schema.js';

export interface FeatureSpec {
  /** Canonical text, e.g. `count(by user over 10 minutes where transactionData.amount > 1000)`. */
  readonly id: string;
  readonly fn: VelocityFn;
  /** Velocity key name (user, senderAccount...) and the field that holds its value. */
  readonly key: string;
  readonly keyPath: string;
  readonly windowMs: number;
  /** Canonical text of the filter, null when every transaction counts. */
  readonly filterText: string | null;
  /** Whether a transaction counts; evaluated on the transaction's own fields only. */
  readonly filter: (env: Env) => boolean;
  /** The aggregated value (sum/avg/max: Decimal; distinct: any); null for count. */
  readonly value: Fn | null;
  /** Canonical text of the value, null for count: features aggregating the same value share its computation. */
  readonly valueText: string | null;
}

const UNITS: readonly [TimeUnit, number][] = [
  ['day', 24 * 60 * MINUTE_MS],
  ['hour', 60 * MINUTE_MS],
  ['minute', MINUTE_MS],
];

/** The same aggregate written with its window in the largest whole unit. */
function normalised(e: ExprOf<'velocity'>): ExprOf<'velocity'> {
  const ms = windowMs(e.window);
  const [unit, size] = UNITS.find(([, size]) => ms % size === 0)!;
  return { ...e, window: { ...e.window, amount: String(ms / size), unit } };
}

export function featureId(e: ExprOf<'velocity'>): string {
  return printExpr(normalised(e));
}

export function velocityNodes(conditions: readonly Expr[]): ExprOf<'velocity'>[] {
  const found: ExprOf<'velocity'>[] = [];
  for (const c of conditions) walkExpr(c, (e) => e.kind === 'velocity' && found.push(e));
  return found;
}

export function featureSpecs(
  conditions: readonly Expr[],
  velocityKeys: Readonly<Record<string, string>>,
  compile: (e: Expr) => Fn,
  idOf: (e: ExprOf<'velocity'>) => string = featureId,
): FeatureSpec[] {
  const specs = new Map<string, FeatureSpec>();
  for (const e of velocityNodes(conditions)) {
    const id = idOf(e);
    if (specs.has(id)) continue;
    const filterFn = e.filter ? compile(e.filter) : null;
    specs.set(id, {
      id,
      fn: e.fn as VelocityFn,
      key: e.key,
      keyPath: velocityKeys[e.key]!,
      windowMs: windowMs(e.window),
      filterText: e.filter ? printExpr(e.filter) : null,
      filter: filterFn ? (env) => filterFn(env) === true : () => true,
      value: e.arg ? compile(e.arg) : null,
      valueText: e.arg ? printExpr(e.arg) : null,
    });
  }
  return [...specs.values()];
}

/** The firstSeen pairs and lastSeen keys that `conditions` name (the checker has made sure each exists). */
export function historyReads(conditions: readonly Expr[]): HistoryReads {
  const named = { firstSeenPairs: new Set<string>(), velocityKeys: new Set<string>() };
  for (const c of conditions) {
    walkExpr(c, (e) => {
      const keyArg = e.kind === 'call' ? BUILTINS[e.name]?.keyArg : undefined;
      if (keyArg) named[keyArg].add(((e as ExprOf<'call'>).args[0] as ExprOf<'field'>).path);
    });
  }
  return { pairs: [...named.firstSeenPairs].sort(), keys: [...named.velocityKeys].sort() };
}
