// History facts fed by the same record() stream as velocity: which (owner, seen) pairs occurred before
// (this device for this user, this receiver for this sender) and when each key last transacted.
// Memory grows with distinct pairs; forgetBefore() bounds it (a pair unseen for that long counts as new).
import type { Schema } from './schema.js';
import { readPath, toText } from './values.js';

const read = (input: unknown, segments: readonly string[]): string | undefined => toText(readPath(input, segments));

/** Paths split once at construction; maps looked up by name only through these records. */
interface Pair {
  readonly owner: readonly string[];
  readonly seen: readonly string[];
  readonly times: Map<string, number>;
  /** The last key built and its parts: firstSeen() then record() of one decision build it once. */
  lastOwner: string | undefined;
  lastSeen: string | undefined;
  lastKey: string | undefined;
}
interface Key {
  readonly path: readonly string[];
  readonly times: Map<string, number>;
}

/** A history store's state: last times by pair name and by key name, each with the paths it was built for. */
export interface HistorySnapshot {
  readonly latest: number;
  readonly pairs: Map<string, { readonly owner: string; readonly seen: string; readonly times: Map<string, number> }>;
  readonly last: Map<string, { readonly path: string; readonly times: Map<string, number> }>;
}

export class HistoryStore {
  private readonly pairs = new Map<string, Pair>();
  private readonly last = new Map<string, Key>();
  /** Latest time recorded: a record at or after it needs no comparison with the key's previous time. */
  private latest = -Infinity;

  constructor(schema: Schema) {
    for (const [name, [owner, seen]] of Object.entries(schema.firstSeenPairs)) {
      this.pairs.set(name, { owner: owner.split('.'), seen: seen.split('.'), times: new Map(), lastOwner: undefined, lastSeen: undefined, lastKey: undefined });
    }
    for (const [name, path] of Object.entries(schema.velocityKeys)) this.last.set(name, { path: path.split('.'), times: new Map() });
  }

  private static pairKey(pair: Pair, input: unknown): string | undefined {
    const owner = read(input, pair.owner);
    if (owner === undefined) return undefined;
    const seen = read(input, pair.seen);
    if (seen === undefined) return undefined;
    if (owner === pair.lastOwner && seen === pair.lastSeen) return pair.lastKey;
    pair.lastOwner = owner;
    pair.lastSeen = seen;
    // NUL cannot occur in JSON identifiers the analysts see, so it separates the two parts unambiguously.
    return (pair.lastKey = `${owner}\u0000${seen}`);
  }

  record(tx: unknown, at: number): void {
    const inOrder = at >= this.latest;
    if (inOrder) this.latest = at;
    for (const pair of this.pairs.values()) {
      const k = HistoryStore.pairKey(pair, tx);
      if (k !== undefined) HistoryStore.seen(pair.times, k, at, inOrder);
    }
    for (const { path, times } of this.last.values()) {
      const k = read(tx, path);
      if (k !== undefined) HistoryStore.seen(times, k, at, inOrder);
    }
  }

  /** Keeps the latest time of `k`: a record older than the newest one (replay in log order) may be older than k's. */
  private static seen(times: Map<string, number>, k: string, at: number, inOrder: boolean): void {
    if (inOrder) times.set(k, at);
    else {
      const before = times.get(k);
      if (before === undefined || before < at) times.set(k, at);
    }
  }

  /** True when the pair never occurred before; missing when either side of the pair is missing. */
  firstSeen(pair: string, tx: unknown): boolean | undefined {
    const p = this.pairs.get(pair)!;
    const k = HistoryStore.pairKey(p, tx);
    return k === undefined ? undefined : !p.times.has(k);
  }

  lastSeen(key: string, tx: unknown): number | undefined {
    const { path, times } = this.last.get(key)!;
    const k = read(tx, path);
    return k === undefined ? undefined : times.get(k);
  }

  /** Shares the live maps: serialise it before the store records anything else. */
  snapshot(): HistorySnapshot {
    const pairs = new Map([...this.pairs].map(([name, p]) => [name, { owner: p.owner.join('.'), seen: p.seen.join('.'), times: p.times }]));
    const last = new Map([...this.last].map(([name, k]) => [name, { path: k.path.join('.'), times: k.times }]));
    return { latest: this.latest, pairs, last };
  }

  /** A store for `schema` holding a snapshot's times, or undefined when the schema's pairs or keys differ from it. */
  static restored(schema: Schema, snapshot: HistorySnapshot): HistoryStore | undefined {
    const store = new HistoryStore(schema);
    for (const [name, pair] of store.pairs) {
      const saved = snapshot.pairs.get(name);
      if (!saved || saved.owner !== pair.owner.join('.') || saved.seen !== pair.seen.join('.')) return undefined;
      for (const [k, t] of saved.times) pair.times.set(k, t);
    }
    for (const [name, key] of store.last) {
      const saved = snapshot.last.get(name);
      if (!saved || saved.path !== key.path.join('.')) return undefined;
      for (const [k, t] of saved.times) key.times.set(k, t);
    }
    store.latest = snapshot.latest;
    return store;
  }

  forgetBefore(cutoff: number): void {
    for (const { times } of [...this.pairs.values(), ...this.last.values()]) for (const [k, t] of times) if (t < cutoff) times.delete(k);
  }
}
