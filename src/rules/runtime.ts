// Glue the engine, the backtest, the rule-test runner and the benchmark share: a FeatureContext over one
// request backed by the in-memory stores, and a RulesRuntime that decides then records, in that order, so
// velocity and history never see the transaction being decided twice.
import type { Decimal } from 'decimal.js';
import type { CompiledRuleset, Evaluation } from './compiler.js';
import type { FeatureContext, ScreeningKind } from './context.js';
import type { Env } from './env.js';
import { HistoryStore } from './history.js';
import { VelocityStore } from './velocity.js';
import { convert, readPath } from './values.js';

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

export function createTransactionContext(o: TransactionContextOptions): FeatureContext {
  const { ruleset, input, now, velocity, history } = o;
  const lists = o.lists ?? NO_LISTS;
  const engineLists = ruleset.schema.engineLists;
  // Filters of velocity features run on the current transaction too; one Env serves all of them.
  let current: Env | undefined;
  return {
    now,
    inList(list, value) {
      const scopePath = engineLists[list]?.scope;
      if (scopePath === undefined) return lists.has(list, value, undefined);
      const scope = convert(readPath(input, scopePath.split('.')), 'string') as string | undefined;
      return scope !== undefined && lists.has(list, value, scope);
    },
    velocity(featureId) {
      current ??= ruleset.pastEnv(input);
      return velocity.valueWith(featureId, current, now);
    },
    firstSeen: (pair) => history.firstSeen(pair, input),
    lastSeen: (key) => history.lastSeen(key, input),
    screeningScore: o.screeningScore,
    ipCountry: o.ipCountry,
  };
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
    this.history = previous?.history ?? new HistoryStore(ruleset.schema);
  }

  evaluate(input: unknown, now: number): Evaluation {
    const ctx = createTransactionContext({ ...this.providers, ruleset: this.ruleset, input, now, velocity: this.velocity, history: this.history });
    return this.ruleset.evaluate(input, ctx);
  }

  record(input: unknown, at: number): void {
    this.velocity.record(input, at);
    this.history.record(input, at);
  }

  decide(input: unknown, now: number): Evaluation {
    const evaluation = this.evaluate(input, now);
    this.record(input, now);
    return evaluation;
  }
}
