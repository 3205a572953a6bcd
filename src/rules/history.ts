// History facts fed by the same record() stream as velocity: which (owner, seen) pairs occurred before
// (this device for this user, this receiver for this sender) and when each key last transacted.
// Only the pairs and keys the ruleset reads are kept: each is a map of up to millions of keys written on every
// decision. Memory grows with distinct pairs; forgetBefore() bounds it (a pair unseen for that long counts as new).
import type { Schema } from './schema.js';
import { presentText, readPath } from './values.js';

const read = (input: unknown, segments: readonly string[]): string | undefined => presentText(readPath(input, segments));

/** Paths split once at construction; maps looked up by name only through these records. */
interface Pair {
  readonly owner: readonly string[];
  readonly seen: readonly string[];
  readonly times: Map<string, number>;
  readonly pending: Pending;
  /** The last key built and its parts: firstSeen() then record() of one decision build it once. */
  lastOwner: string | undefined;
  lastSeen: string | undefined;
  lastKey: string | undefined;
}
interface Key {
  readonly path: readonly string[];
  readonly times: Map<string, number>;
  readonly pending: Pending;
}

/** The latest change of each key whose decisions have not all settled (see HistoryChange). */
type Pending = Map<string, HistoryChange>;

/**
 * A time a decision recorded before its append committed, kept until its decisions settle: if every decision that
 * recorded it fails, the time it replaced is put back. Decisions of a key in the same millisecond share one change.
 */
export interface HistoryChange {
  readonly times: Map<string, number>;
  readonly pending: Pending;
  readonly key: string;
  readonly at: number;
  readonly before: number | undefined;
  /** The change whose time `before` is, while its decisions had not all settled: failed since, it is skipped too. */
  readonly previous: HistoryChange | undefined;
  /** Decisions that recorded this time and have not failed (committed ones keep it for good). */
  holders: number;
  /** Decisions that recorded this time and have not settled. */
  unsettled: number;
}

/** The changes one decision's record made, for HistoryStore.settle(). */
export type HistoryUndo = HistoryChange[];

/** The schema's firstSeen pairs and lastSeen keys that a ruleset's rules name (compiler.ts). */
export interface HistoryReads {
  readonly pairs: readonly string[];
  readonly keys: readonly string[];
}

/** What of `want` is not in `have`: a store kept for `have` lacks it, and a ruleset that reads it needs it rebuilt. */
export function missingReads(have: HistoryReads, want: HistoryReads): HistoryReads {
  return { pairs: want.pairs.filter((p) => !have.pairs.includes(p)), keys: want.keys.filter((k) => !have.keys.includes(k)) };
}

export const nothingToRead = (reads: HistoryReads): boolean => reads.pairs.length === 0 && reads.keys.length === 0;

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

  /**
   * Keeps the history `reads` names. A pair or key that one of `carried` keeps is shared with it (its times and
   * all it records from then on); any other starts empty.
   */
  constructor(schema: Schema, reads: HistoryReads, ...carried: HistoryStore[]) {
    for (const name of reads.pairs) {
      const [owner, seen] = schema.firstSeenPairs[name]!;
      const shared = carried.find((c) => c.pairs.has(name))?.pairs.get(name);
      this.pairs.set(
        name,
        shared ?? {
          owner: owner.split('.'),
          seen: seen.split('.'),
          times: new Map(),
          pending: new Map(),
          lastOwner: undefined,
          lastSeen: undefined,
          lastKey: undefined,
        },
      );
    }
    for (const name of reads.keys) {
      const shared = carried.find((c) => c.last.has(name))?.last.get(name);
      this.last.set(name, shared ?? { path: schema.velocityKeys[name]!.split('.'), times: new Map(), pending: new Map() });
    }
    this.latest = Math.max(this.latest, ...carried.map((c) => c.latest));
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

  /**
   * `undo`: the record is a decision's whose append has not committed yet; its changes are collected there, and
   * settle() must be called with them once the append is done.
   */
  record(tx: unknown, at: number, undo?: HistoryUndo): void {
    const inOrder = at >= this.latest;
    if (inOrder) this.latest = at;
    for (const pair of this.pairs.values()) {
      const k = HistoryStore.pairKey(pair, tx);
      if (k !== undefined) HistoryStore.seen(pair, k, at, inOrder, undo);
    }
    for (const key of this.last.values()) {
      const k = read(tx, key.path);
      if (k !== undefined) HistoryStore.seen(key, k, at, inOrder, undo);
    }
  }

  /**
   * A decision's append is done. If it failed, each time it recorded that no other decision holds goes, where no
   * later record has replaced it, and the time before comes back: the one before that if the decision that recorded
   * it failed too, and so on. `latest` stays: it only lets in-order records skip a comparison.
   */
  static settle(undo: HistoryUndo, failed: boolean): void {
    for (let i = undo.length - 1; i >= 0; i--) {
      const change = undo[i]!;
      if (failed && --change.holders === 0 && change.times.get(change.key) === change.at) {
        let c = change;
        while (c.previous !== undefined && c.previous.holders === 0) c = c.previous;
        if (c.before === undefined) change.times.delete(change.key);
        else change.times.set(change.key, c.before);
      }
      if (--change.unsettled === 0 && change.pending.get(change.key) === change) change.pending.delete(change.key);
    }
  }

  /** Keeps the latest time of `k`: a record older than the newest one (replay in log order) may be older than k's. */
  private static seen(
    { times, pending }: { times: Map<string, number>; pending: Pending },
    k: string,
    at: number,
    inOrder: boolean,
    undo: HistoryUndo | undefined,
  ): void {
    if (undo) {
      const before = times.get(k);
      if (before !== undefined && before > at) return;
      const latest = pending.get(k);
      if (before === at) {
        // Another decision in flight recorded this very time: this one holds it too. (Recorded by a committed
        // decision, or by another process, the time stays whatever becomes of this one.)
        if (latest?.at === at) {
          latest.holders++;
          latest.unsettled++;
          undo.push(latest);
        }
        return;
      }
      const previous = latest?.at === before ? latest : undefined;
      const change: HistoryChange = { times, pending, key: k, at, before, previous, holders: 1, unsettled: 1 };
      pending.set(k, change);
      undo.push(change);
      times.set(k, at);
    } else if (inOrder) times.set(k, at);
    else {
      const before = times.get(k);
      if (before === undefined || before < at) times.set(k, at);
    }
  }

  /** True when the pair never occurred before; missing when either side of the pair is missing. */
  firstSeen(pair: string, tx: unknown): boolean | undefined {
    const p = this.pairs.get(pair);
    if (!p) throw new Error(`history of the pair '${pair}' is not kept: the store was built for another ruleset`);
    const k = HistoryStore.pairKey(p, tx);
    return k === undefined ? undefined : !p.times.has(k);
  }

  lastSeen(key: string, tx: unknown): number | undefined {
    const last = this.last.get(key);
    if (!last) throw new Error(`history of the key '${key}' is not kept: the store was built for another ruleset`);
    const { path, times } = last;
    const k = read(tx, path);
    return k === undefined ? undefined : times.get(k);
  }

  /** Shares the live maps: serialise it before the store records anything else. */
  snapshot(): HistorySnapshot {
    const pairs = new Map([...this.pairs].map(([name, p]) => [name, { owner: p.owner.join('.'), seen: p.seen.join('.'), times: p.times }]));
    const last = new Map([...this.last].map(([name, k]) => [name, { path: k.path.join('.'), times: k.times }]));
    return { latest: this.latest, pairs, last };
  }

  /** A store for `reads` holding a snapshot's times, or undefined when the snapshot lacks one of them or built it otherwise. */
  static restored(schema: Schema, reads: HistoryReads, snapshot: HistorySnapshot): HistoryStore | undefined {
    const store = new HistoryStore(schema, reads);
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

  /**
   * Takes in the times of a snapshot of a store over the same schema, or a slice of one (a rebuild made elsewhere
   * hands its history over in slices): each key keeps its latest time.
   */
  absorb(snapshot: HistorySnapshot): void {
    for (const [name, saved] of snapshot.pairs) {
      const pair = this.pairs.get(name);
      if (!pair || saved.owner !== pair.owner.join('.') || saved.seen !== pair.seen.join('.'))
        throw new Error(`history of the pair '${name}' is not kept as the snapshot has it`);
      keepLatest(pair.times, saved.times);
    }
    for (const [name, saved] of snapshot.last) {
      const key = this.last.get(name);
      if (!key || saved.path !== key.path.join('.')) throw new Error(`history of the key '${name}' is not kept as the snapshot has it`);
      keepLatest(key.times, saved.times);
    }
    this.latest = Math.max(this.latest, snapshot.latest);
  }

  forgetBefore(cutoff: number): void {
    for (const { times } of [...this.pairs.values(), ...this.last.values()]) for (const [k, t] of times) if (t < cutoff) times.delete(k);
  }
}

function keepLatest(times: Map<string, number>, from: ReadonlyMap<string, number>): void {
  for (const [k, t] of from) {
    const before = times.get(k);
    if (before === undefined || before < t) times.set(k, t);
  }
}
