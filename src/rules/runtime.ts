// Glue the engine, the backtest, the rule-test runner and the benchmark share: a FeatureContext over one
// request backed by the in-memory stores, and a RulesRuntime that decides then records, in that order, so
// velocity and history never see the transaction being decided twice.
import type { Decimal } from 'decimal.js';
import type { CompiledRuleset, Evaluation } from './compiler.js';
import type { FeatureContext, ScreeningKind } from './context.js';
import type { Env } from './env.js';
import { HistoryStore } from './history.js';
import { VelocityStore } from './velocity/windows.js';
import type { Schema } from './schema.js';
import { presentText, readPath } from './values.js';

/** Event-sourced lists. `scope` is the value of the list's scope field (e.g. the user id for knownDevices). */
export interface ListProvider {
  has(list: string, value: string, scope: string | undefined): boolean;
}

export class MemoryLists implements ListProvider {
  private readonly sets = new Map<string, Set<string>>();

  private static key(list: string, scope: string | undefined): string {
    return scope === undefined ? list : `${list}\u0000${scope}`;
  }

  add(list: string, value: string, scope?: string): void {
    const k = MemoryLists.key(list, scope);
    let set = this.sets.get(k);
    if (!set) this.sets.set(k, (set = new Set()));
    set.add(value);
  }

  remove(list: string, value: string, scope?: string): void {
    this.sets.get(MemoryLists.key(list, scope))?.delete(value);
  }

  has(list: string, value: string, scope: string | undefined): boolean {
    return this.sets.get(MemoryLists.key(list, scope))?.has(value) ?? false;
  }

  /** Every list's entries; shares the live sets, so serialise it before the lists change. */
  snapshot(): ReadonlyMap<string, ReadonlySet<string>> {
    return this.sets;
  }

  static restored(snapshot: ReadonlyMap<string, ReadonlySet<string>>): MemoryLists {
    const lists = new MemoryLists();
    for (const [k, values] of snapshot) lists.sets.set(k, new Set(values));
    return lists;
  }
}

export interface Providers {
  readonly lists?: ListProvider;
  readonly screeningScore?: (kind: ScreeningKind, name: string) => Decimal | number;
  readonly ipCountry?: (ip: string) => string | undefined;
}

export interface TransactionContextOptions extends Providers {
  readonly ruleset: CompiledRuleset;
  readonly input: unknown;
  readonly now: number;
  readonly velocity: VelocityStore;
  readonly history: HistoryStore;
}

const NO_LISTS: ListProvider = { has: () => false };

/** Scope field of each engine list, split once per schema rather than per lookup. */
const scopePaths = new WeakMap<Schema, ReadonlyMap<string, readonly string[]>>();

function scopePathsOf(schema: Schema): ReadonlyMap<string, readonly string[]> {
  let paths = scopePaths.get(schema);
  if (!paths) {
    paths = new Map(
      Object.entries(schema.engineLists).flatMap(([list, def]) => (def.scope === undefined ? [] : [[list, def.scope.split('.')] as const])),
    );
    scopePaths.set(schema, paths);
  }
  return paths;
}

/** One object per decision with methods on its prototype: no closures are created per request. */
class TransactionContext implements FeatureContext {
  readonly screeningScore: Providers['screeningScore'];
  readonly ipCountry: Providers['ipCountry'];
  private readonly lists: ListProvider;
  private readonly scopes: ReadonlyMap<string, readonly string[]>;
  /** For callers that do not pass the decision's Env: filters of velocity features run on the current transaction too. */
  private current: Env | undefined;

  constructor(
    private readonly ruleset: CompiledRuleset,
    private readonly input: unknown,
    readonly now: number,
    private readonly velocityStore: VelocityStore,
    private readonly history: HistoryStore,
    providers: Providers,
  ) {
    this.lists = providers.lists ?? NO_LISTS;
    this.screeningScore = providers.screeningScore;
    this.ipCountry = providers.ipCountry;
    this.scopes = scopePathsOf(ruleset.schema);
  }

  inList(list: string, value: string): boolean {
    const scopePath = this.scopes.get(list);
    if (scopePath === undefined) return this.lists.has(list, value, undefined);
    const scope = presentText(readPath(this.input, scopePath));
    return scope !== undefined && this.lists.has(list, value, scope);
  }

  velocity(featureId: string, current?: Env): Decimal | undefined {
    return this.velocityStore.valueWith(featureId, current ?? (this.current ??= this.ruleset.pastEnv(this.input)), this.now);
  }

  firstSeen(pair: string): boolean | undefined {
    return this.history.firstSeen(pair, this.input);
  }

  lastSeen(key: string): number | undefined {
    return this.history.lastSeen(key, this.input);
  }
}

export function createTransactionContext(o: TransactionContextOptions): FeatureContext {
  return new TransactionContext(o.ruleset, o.input, o.now, o.velocity, o.history, o);
}

/** A ruleset with its velocity and history state: decide() evaluates a request, then records it. */
export class RulesRuntime {
  readonly velocity: VelocityStore;
  readonly history: HistoryStore;

  constructor(
    readonly ruleset: CompiledRuleset,
    private readonly providers: Providers = {},
    previous?: RulesRuntime,
  ) {
    this.velocity = new VelocityStore(ruleset, previous?.velocity);
    // As with velocity features, history this ruleset reads and `previous` did not keep starts empty.
    this.history = new HistoryStore(ruleset.schema, ruleset.history, ...(previous ? [previous.history] : []));
  }

  /** `observe`: wraps the context over this runtime's state (a backtest answers recorded features first). */
  private env(input: unknown, now: number, observe?: (ctx: FeatureContext) => FeatureContext): Env {
    const ctx = new TransactionContext(this.ruleset, input, now, this.velocity, this.history, this.providers);
    return this.ruleset.env(input, observe ? observe(ctx) : ctx);
  }

  evaluate(input: unknown, now: number): Evaluation {
    return this.ruleset.evaluateEnv(this.env(input, now));
  }

  record(input: unknown, at: number): void {
    this.velocity.record(input, at);
    this.history.record(input, at);
  }

  /** Evaluates then records through one Env, so each request field is converted once per decision. */
  decide(input: unknown, now: number, observe?: (ctx: FeatureContext) => FeatureContext): Evaluation {
    const env = this.env(input, now, observe);
    const evaluation = this.ruleset.evaluateEnv(env);
    this.velocity.recordEnv(env, now);
    this.history.record(input, now);
    return evaluation;
  }
}
