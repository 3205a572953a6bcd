// Rolling velocity aggregates, in memory, for exactly the FeatureSpecs a ruleset needs, grouped by key field
// (one map per key field from key value to a record number). Each feature keeps its windows in a Series: per
// record a time-ordered list of the matching transactions in typed arrays, with a running exact sum, a
// monotonic deque for max and, for distinct, the value keys (scanned while few, then counted in a Map).
//
// Semantics: an entry recorded at time t is inside the window at `now` iff now - windowMs < t <= now.
// valueWith() includes the transaction being decided ("this is the 5th transfer in 10 minutes").
// A record older than the newest entry of a window (replay order can trail decision order) goes in time order.
import type { Decimal } from 'decimal.js';
import type { Env } from '../env.js';
import type { FeatureSpec } from '../features.js';
import { presentText, readPath, type Value } from '../values.js';
import type { DisplacedPeak } from './peaks.js';
import { Series, type Amount } from './series.js';
import { decodeFeature, encodeFeature, type FeatureSnapshot, type VelocitySnapshot } from './snapshot.js';

interface Source {
  readonly features: readonly FeatureSpec[];
  pastEnv(input: unknown): Env;
}

/** A key's map entry and its string: an estimate, the rest of the state is measured. */
const KEY_BYTES = 80;
const FIRST_CAPACITY = 64;

/** What unrecordEnv() needs to take a transaction out besides its Env: the max entries it displaced, by window series. */
export interface VelocityUndo {
  readonly displaced: Map<Series, DisplacedPeak[]>;
}

export interface VelocityStats {
  readonly keys: number;
  readonly entries: number;
  /** Memory: the typed arrays behind the windows as allocated, plus an estimate per key value of its map entry. */
  readonly approxBytes: number;
  readonly approxBytesPerKey: number;
}

/** Everything one feature needs at run time, found with a single lookup by feature id. */
interface Feature {
  readonly spec: FeatureSpec;
  readonly group: Group;
  readonly series: Series;
  /** Index of the feature's value among the store's distinct value expressions; -1 for count. */
  readonly valueSlot: number;
  /** Whether the value is an amount (sum, avg, max) rather than a value key (distinct). */
  readonly amount: boolean;
}

/**
 * Windows of one key field (user, device...): each key value has a record number, the same in every feature's
 * Series, so a decision looks each key value up once, not once per feature.
 */
interface Group {
  readonly index: number;
  readonly keyPath: string;
  readonly keySegments: readonly string[];
  readonly features: Feature[];
  readonly records: Map<string, number>;
  /** Record numbers given back by keys whose windows all emptied. */
  readonly free: number[];
  used: number;
  capacity: number;
}

/** Memo marks: a group's key not looked up yet for the memoised Env, and a key without a record. */
const NOT_LOOKED = -2;
const ABSENT = -1;
/** Marks a value expression not yet evaluated for `memoEnv` (undefined is a value: the field is missing). */
const NOT_COMPUTED: unique symbol = Symbol('not computed');

export class VelocityStore {
  private readonly features = new Map<string, Feature>();
  private readonly groups: Group[] = [];
  private readonly valueSlots = new Map<string, number>();
  /**
   * Records valueWith() found for the Env of the request being decided, by group index, so that recording the
   * same request next (RulesRuntime.decide) does not look its keys up again in maps of up to millions of keys.
   */
  private memoEnv: Env | undefined;
  private readonly memo: number[] = [];
  /** The values of the store's distinct value expressions for `memoEnv`, by value slot: computed once each. */
  private readonly values: (Value | typeof NOT_COMPUTED)[] = [];
  /** The same values as amounts, once a feature needed them. */
  private readonly amounts: (Amount | undefined)[] = [];

  /**
   * `previous`: a store for an older ruleset whose state is kept for the features both share. It hands its windows
   * over rather than copying them (a reload swaps at once, whatever the state's size), so it must not record
   * afterwards.
   */
  constructor(
    private readonly source: Source,
    previous?: VelocityStore,
  ) {
    for (const spec of source.features) {
      let group = this.groups.find((g) => g.keyPath === spec.keyPath);
      if (!group) {
        // A key field's record numbers, and so its map from key text, go with the windows that use them.
        const old = previous?.groups.find((g) => g.keyPath === spec.keyPath);
        group = {
          index: this.groups.length,
          keyPath: spec.keyPath,
          keySegments: spec.keyPath.split('.'),
          features: [],
          records: old?.records ?? new Map(),
          free: old?.free ?? [],
          used: old?.used ?? 0,
          capacity: old?.capacity ?? FIRST_CAPACITY,
        };
        this.groups.push(group);
        this.memo.push(NOT_LOOKED);
      }
      const kept = previous?.features.get(spec.id);
      const series = kept?.group.keyPath === spec.keyPath ? kept.series : new Series(spec, group.capacity);
      const amount = spec.fn === 'sum' || spec.fn === 'avg' || spec.fn === 'max';
      const feature: Feature = { spec, group, series, valueSlot: this.valueSlot(spec.valueText), amount };
      group.features.push(feature);
      this.features.set(spec.id, feature);
      // A schema that moved the feature's key field to another path: its windows are filed again by key text.
      if (kept && kept.series !== series)
        this.decodeInto(
          feature,
          encodeFeature(kept.series, kept.group.keyPath, [...kept.group.records.keys()], [...kept.group.records.values()]),
        );
    }
  }

  private valueSlot(text: string | null): number {
    if (text === null) return -1;
    const slot = this.valueSlots.get(text) ?? this.values.push(NOT_COMPUTED) - 1;
    this.amounts.length = this.values.length;
    this.valueSlots.set(text, slot);
    return slot;
  }

  /** Makes `env` the memoised Env: the records and values found for another one are forgotten. */
  private remember(env: Env): void {
    if (env === this.memoEnv) return;
    this.memoEnv = env;
    this.memo.fill(NOT_LOOKED);
    this.values.fill(NOT_COMPUTED);
    this.amounts.fill(undefined);
  }

  /** The feature's value for the memoised Env `env`, computed once per value expression. */
  private valueOf(f: Feature, env: Env): Value {
    if (f.valueSlot < 0) return undefined;
    let v = this.values[f.valueSlot];
    if (v === NOT_COMPUTED) this.values[f.valueSlot] = v = f.spec.value!(env) as Value;
    return v;
  }

  /** The present amount `v` of feature f for the memoised Env, with its nearest double and decimal places. */
  private amountOf(f: Feature, v: Decimal): Amount {
    let a = this.amounts[f.valueSlot];
    if (a === undefined) this.amounts[f.valueSlot] = a = { value: v, num: v.toNumber(), places: v.decimalPlaces() };
    return a;
  }

  /** The record of `key` in `group`, created if it has none. */
  private recordFor(group: Group, key: string): number {
    const found = group.records.get(key);
    if (found !== undefined) return found;
    let r = group.free.pop();
    if (r === undefined) {
      r = group.used++;
      if (r === group.capacity) {
        group.capacity *= 2;
        for (const f of group.features) f.series.ensure(group.capacity);
      }
    }
    group.records.set(key, r);
    return r;
  }

  private decodeInto(f: Feature, saved: FeatureSnapshot): void {
    decodeFeature(f.series, saved, (key) => this.recordFor(f.group, key));
  }

  snapshot(): VelocitySnapshot {
    const features = new Map<string, FeatureSnapshot>();
    for (const { keyPath, records, features: groupFeatures } of this.groups) {
      // Listed once per key field, for all its features.
      const keys = [...records.keys()];
      const numbers = [...records.values()];
      for (const f of groupFeatures) features.set(f.spec.id, encodeFeature(f.series, keyPath, keys, numbers));
    }
    return { features };
  }

  /**
   * A store for `source` holding a snapshot's windows, or undefined when the snapshot lacks one of its
   * features (a rule added since, or a key field moved): those windows can only be rebuilt from the log.
   */
  static restored(source: Source, snapshot: VelocitySnapshot): VelocityStore | undefined {
    const store = new VelocityStore(source);
    for (const f of store.features.values()) {
      const saved = snapshot.features.get(f.spec.id);
      if (!saved || saved.keyPath !== f.group.keyPath) return undefined;
      store.decodeInto(f, saved);
    }
    return store;
  }

  /**
   * Takes in windows of keys this store holds none of for those features: a part of a snapshot of a store for the
   * same features (sliceSnapshot), as a rebuild made elsewhere hands its windows over. Throws when a feature of
   * the part is not this store's, or keyed otherwise.
   */
  absorb(part: VelocitySnapshot): void {
    for (const [id, saved] of part.features) {
      const f = this.features.get(id);
      if (!f || saved.keyPath !== f.group.keyPath) throw new Error(`the windows of feature '${id}' are not kept as the part has them`);
      this.decodeInto(f, saved);
    }
  }

  /** Features without state carried over from the previous store: the engine backfills them from the log. */
  static newFeatures(store: VelocityStore, previous: VelocityStore | undefined): string[] {
    return [...store.features.keys()].filter((id) => !previous?.features.has(id));
  }

  /** Adds a decided transaction. `only`: restrict to these feature ids (for backfilling new features). */
  record(tx: unknown, at: number, only?: ReadonlySet<string>): void {
    this.recordEnv(this.source.pastEnv(tx), at, only);
  }

  /**
   * record() over an Env of the transaction, e.g. the one it was just evaluated with. `undo`: collects what
   * unrecordEnv() needs beyond the Env to take the transaction out again (the max entries it displaced).
   */
  recordEnv(env: Env, t: number, only?: ReadonlySet<string>, undo?: VelocityUndo): void {
    this.remember(env);
    for (const group of this.groups) {
      const key = presentText(readPath(env.input, group.keySegments));
      if (key === undefined) continue;
      let r = this.memo[group.index]!;
      if (r === NOT_LOOKED) r = group.records.get(key) ?? ABSENT;
      for (const feature of group.features) {
        const { spec, series } = feature;
        if (only && !only.has(spec.id)) continue;
        if (!spec.filter(env)) continue;
        const v = this.valueOf(feature, env);
        if (spec.value && v === undefined) continue;
        if (r === ABSENT) this.memo[group.index] = r = this.recordFor(group, key);
        series.evict(r, t);
        const displaced = undo && series.hasPeaks ? [] : undefined;
        series.add(r, t, v, feature.amount ? this.amountOf(feature, v as Decimal) : undefined, displaced);
        if (displaced && displaced.length > 0) undo!.displaced.set(series, displaced);
      }
    }
  }

  /**
   * Takes out a transaction recordEnv(env, t, undefined, undo) added (a decision whose append failed): its
   * windows then hold what they would had it never come. Decisions recorded since stay in.
   */
  unrecordEnv(env: Env, t: number, undo: VelocityUndo): void {
    this.remember(env);
    for (const group of this.groups) {
      const key = presentText(readPath(env.input, group.keySegments));
      const r = key === undefined ? undefined : group.records.get(key);
      if (r === undefined) continue;
      for (const feature of group.features) {
        const { spec, series } = feature;
        if (!spec.filter(env)) continue;
        const v = this.valueOf(feature, env);
        if (spec.value && v === undefined) continue;
        const amount = feature.amount ? this.amountOf(feature, v as Decimal) : undefined;
        series.remove(r, t, v, amount, undo.displaced.get(series) ?? []);
      }
    }
  }

  /** The aggregate over past transactions only. */
  value(specId: string, key: string, now: number): Decimal | undefined {
    const { group, series } = this.feature(specId);
    const r = group.records.get(key) ?? ABSENT;
    series.evict(r, now);
    return series.result(r, undefined, false);
  }

  /** The aggregate including the transaction being decided (`current`, an Env over it). */
  valueWith(specId: string, current: Env, now: number): Decimal | undefined {
    const feature = this.feature(specId);
    const { spec, group, series } = feature;
    this.remember(current);
    let r = this.memo[group.index]!;
    if (r === NOT_LOOKED) {
      const key = presentText(readPath(current.input, group.keySegments));
      if (key === undefined) return undefined;
      this.memo[group.index] = r = group.records.get(key) ?? ABSENT;
    }
    series.evict(r, now);
    const v = this.valueOf(feature, current);
    return series.result(r, v, spec.filter(current) && (!spec.value || v !== undefined));
  }

  private feature(id: string): Feature {
    const f = this.features.get(id);
    if (!f) throw new Error(`unknown velocity feature ${id}`);
    return f;
  }

  /** Drops expired entries everywhere and the keys left without any; call periodically to bound memory. */
  evictExpired(now: number): void {
    // Record numbers may be given back below: a memoised one must not be written to afterwards.
    this.memoEnv = undefined;
    for (const group of this.groups) {
      for (const [key, r] of group.records) {
        let live = false;
        for (const { series } of group.features) {
          series.evict(r, now);
          if (series.sizeOf(r) > 0) live = true;
        }
        if (!live) {
          group.records.delete(key);
          group.free.push(r);
        }
      }
    }
  }

  stats(): VelocityStats {
    let keys = 0;
    let entries = 0;
    let bytes = 0;
    for (const group of this.groups) {
      bytes += group.records.size * KEY_BYTES;
      for (const { series } of group.features) {
        bytes += series.bytes;
        for (const r of group.records.values()) {
          const n = series.sizeOf(r);
          if (n > 0) keys++;
          entries += n;
        }
      }
    }
    return { keys, entries, approxBytes: bytes, approxBytesPerKey: keys === 0 ? 0 : Math.round(bytes / keys) };
  }
}
