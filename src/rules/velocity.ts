// Rolling velocity aggregates, in memory, for exactly the FeatureSpecs a ruleset needs, grouped by key field
// (one map per key field, one record per key value). Per (feature, key) a time-ordered deque of the matching
// transactions with a running Decimal sum, a monotonic deque for max and, for distinct, the value keys
// (scanned while few, then counted in a value→count map); entries leave the deque when they fall out of the window.
//
// Semantics: an entry recorded at time t is inside the window at `now` iff now - windowMs < t <= now.
// valueWith() includes the transaction being decided ("this is the 5th transfer in 10 minutes").
// A record older than the newest entry of a window (replay order can trail decision order) goes in time order.
import type { Decimal } from 'decimal.js';
import type { Env } from './env.js';
import type { FeatureSpec } from './features.js';
import { readPath, toText, type Value } from './values.js';
import { decodeFeature, encodeFeature, type VelocitySnapshot } from './velocity-snapshot.js';
import { Window } from './velocity-window.js';

interface Source {
  readonly features: readonly FeatureSpec[];
  pastEnv(input: unknown): Env;
}

const EMPTY_WINDOW_BYTES = 400;
const ENTRY_BYTES = 16;
const DECIMAL_BYTES = 80;

export interface VelocityStats {
  readonly keys: number;
  readonly entries: number;
  /** Rough estimate of heap use: a fixed cost per window plus per entry (Decimals count extra). */
  readonly approxBytes: number;
  readonly approxBytesPerKey: number;
}

/** Everything one feature needs at run time, found with a single lookup by feature id. */
interface Feature {
  readonly spec: FeatureSpec;
  readonly group: Group;
  /** Position of this feature's window in its group's per-key records. */
  readonly slot: number;
  /** Stands for every key without a window: never added to, so reads allocate nothing. */
  readonly empty: Window;
  /** Index of the feature's value among the store's distinct value expressions; -1 for count. */
  readonly valueSlot: number;
}

/**
 * Windows of one key field (user, device...), one record per key value holding the window of every feature on
 * that key by slot: a decision looks each key value up once, not once per feature.
 */
interface Group {
  readonly index: number;
  readonly keyPath: string;
  readonly keySegments: readonly string[];
  readonly features: Feature[];
  readonly records: Map<string, (Window | undefined)[]>;
}

/** Marks a group whose key value was looked up for the memoised Env and has no record. */
const ABSENT: (Window | undefined)[] = [];
/** Marks a value expression not yet evaluated for `valuesEnv` (undefined is a value: the field is missing). */
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
  private readonly memo: ((Window | undefined)[] | undefined)[] = [];
  /**
   * The values of the store's distinct value expressions for `memoEnv`, by value slot. Features that sum the same
   * field share one Decimal, computed once: it is kept in every window of the transaction, and each copy would live
   * as long as its window.
   */
  private readonly values: (Value | typeof NOT_COMPUTED)[] = [];

  /** `previous`: a store for an older ruleset whose state is kept for the features both share. */
  constructor(private readonly source: Source, previous?: VelocityStore) {
    for (const spec of source.features) {
      let group = this.groups.find((g) => g.keyPath === spec.keyPath);
      if (!group) {
        group = { index: this.groups.length, keyPath: spec.keyPath, keySegments: spec.keyPath.split('.'), features: [], records: new Map() };
        this.groups.push(group);
        this.memo.push(undefined);
      }
      const feature: Feature = { spec, group, slot: group.features.length, empty: new Window(spec), valueSlot: this.valueSlot(spec.valueText) };
      group.features.push(feature);
      this.features.set(spec.id, feature);
    }
    if (previous) for (const group of this.groups) this.carry(group, previous);
  }

  private valueSlot(text: string | null): number {
    if (text === null) return -1;
    const slot = this.valueSlots.get(text) ?? this.values.push(NOT_COMPUTED) - 1;
    this.valueSlots.set(text, slot);
    return slot;
  }

  /** Makes `env` the memoised Env: the records and values found for another one are forgotten. */
  private remember(env: Env): void {
    if (env === this.memoEnv) return;
    this.memoEnv = env;
    this.memo.fill(undefined);
    this.values.fill(NOT_COMPUTED);
  }

  /** The feature's value for the memoised Env `env`, computed once per value expression. */
  private valueOf(f: Feature, env: Env): Value {
    if (f.valueSlot < 0) return undefined;
    let v = this.values[f.valueSlot];
    if (v === NOT_COMPUTED) this.values[f.valueSlot] = v = f.spec.value!(env) as Value;
    return v;
  }

  /** Copies the previous store's windows of the features this group shares with it: O(keys) once per reload. */
  private carry(group: Group, previous: VelocityStore): void {
    const shared = group.features.flatMap((f) => {
      const old = previous.features.get(f.spec.id);
      return old ? [{ slot: f.slot, old }] : [];
    });
    const width = group.features.length;
    // Features on one key name share a group in the previous store too, unless the schema moved the key field.
    for (const from of new Set(shared.map((s) => s.old.group))) {
      const mine = shared.filter((s) => s.old.group === from);
      for (const [key, old] of from.records) {
        let record = group.records.get(key);
        for (const { slot, old: f } of mine) {
          const w = old[f.slot];
          if (w === undefined) continue;
          if (!record) group.records.set(key, (record = new Array<Window | undefined>(width).fill(undefined)));
          record[slot] = w;
        }
      }
    }
  }

  snapshot(): VelocitySnapshot {
    const features = new Map<string, ReturnType<typeof encodeFeature>>();
    for (const group of this.groups) {
      const keys = group.features.map((): string[] => []);
      const windows = group.features.map((): Window[] => []);
      for (const [key, record] of group.records) {
        for (let slot = 0; slot < record.length; slot++) {
          const w = record[slot];
          if (w === undefined || w.size === 0) continue;
          keys[slot]!.push(key);
          windows[slot]!.push(w);
        }
      }
      for (const { spec, slot } of group.features) features.set(spec.id, encodeFeature(group.keyPath, keys[slot]!, windows[slot]!));
    }
    return { features };
  }

  /**
   * A store for `source` holding a snapshot's windows, or undefined when the snapshot lacks one of its
   * features (a rule added since, or a key field moved): those windows can only be rebuilt from the log.
   */
  static restored(source: Source, snapshot: VelocitySnapshot): VelocityStore | undefined {
    const store = new VelocityStore(source);
    for (const group of store.groups) {
      for (const { spec, slot } of group.features) {
        const saved = snapshot.features.get(spec.id);
        if (!saved || saved.keyPath !== group.keyPath) return undefined;
        decodeFeature(spec, saved, (key, w) => {
          let record = group.records.get(key);
          if (!record) group.records.set(key, (record = new Array<Window | undefined>(group.features.length).fill(undefined)));
          record[slot] = w;
        });
      }
    }
    return store;
  }

  /** Features without state carried over from the previous store: the engine backfills them from the log. */
  static newFeatures(store: VelocityStore, previous: VelocityStore | undefined): string[] {
    return [...store.features.keys()].filter((id) => !previous?.features.has(id));
  }

  /** Adds a decided transaction. `only`: restrict to these feature ids (for backfilling new features). */
  record(tx: unknown, at: number, only?: ReadonlySet<string>): void {
    this.recordEnv(this.source.pastEnv(tx), at, only);
  }

  /** record() over an Env of the transaction, e.g. the one it was just evaluated with. */
  recordEnv(env: Env, t: number, only?: ReadonlySet<string>): void {
    this.remember(env);
    for (const group of this.groups) {
      const key = toText(readPath(env.input, group.keySegments));
      if (key === undefined) continue;
      let record = this.memo[group.index] ?? group.records.get(key);
      const features = group.features;
      for (let i = 0; i < features.length; i++) {
        const feature = features[i]!;
        const { spec } = feature;
        if (only && !only.has(spec.id)) continue;
        if (!spec.filter(env)) continue;
        const v = this.valueOf(feature, env);
        if (spec.value && v === undefined) continue;
        if (record === undefined || record === ABSENT) {
          record = new Array<Window | undefined>(features.length).fill(undefined);
          group.records.set(key, record);
          this.memo[group.index] = record;
        }
        let w = record[i];
        if (w === undefined) record[i] = w = new Window(spec);
        else w.evict(t);
        w.add(t, v);
      }
    }
  }

  /** The aggregate over past transactions only. */
  value(specId: string, key: string, now: number): Decimal | undefined {
    const f = this.feature(specId);
    const w = f.group.records.get(key)?.[f.slot] ?? f.empty;
    w.evict(now);
    return w.result(undefined, false);
  }

  /** The aggregate including the transaction being decided (`current`, an Env over it). */
  valueWith(specId: string, current: Env, now: number): Decimal | undefined {
    const feature = this.feature(specId);
    const { spec, group, slot, empty } = feature;
    this.remember(current);
    let record = this.memo[group.index];
    if (record === undefined) {
      const key = toText(readPath(current.input, group.keySegments));
      if (key === undefined) return undefined;
      record = group.records.get(key) ?? ABSENT;
      this.memo[group.index] = record;
    }
    const w = record[slot] ?? empty;
    w.evict(now);
    const v = this.valueOf(feature, current);
    return w.result(v, spec.filter(current) && (!spec.value || v !== undefined));
  }

  private feature(id: string): Feature {
    const f = this.features.get(id);
    if (!f) throw new Error(`unknown velocity feature ${id}`);
    return f;
  }

  /** Drops expired entries, empty windows and empty keys everywhere; call periodically to bound memory. */
  evictExpired(now: number): void {
    // Records may be deleted below: a memoised one must not be written to afterwards.
    this.memoEnv = undefined;
    for (const { records } of this.groups) {
      for (const [key, record] of records) {
        let live = false;
        for (let i = 0; i < record.length; i++) {
          const w = record[i];
          if (w === undefined) continue;
          w.evict(now);
          if (w.size === 0) record[i] = undefined;
          else live = true;
        }
        if (!live) records.delete(key);
      }
    }
  }

  stats(): VelocityStats {
    let keys = 0;
    let bytes = 0;
    let entries = 0;
    for (const { records } of this.groups) {
      for (const record of records.values()) {
        for (const w of record) {
          if (w === undefined) continue;
          const decimals = w.spec.fn !== 'count' && w.spec.fn !== 'distinct';
          keys++;
          entries += w.size;
          bytes += EMPTY_WINDOW_BYTES + (w.size + (w.peaks?.size ?? 0)) * (ENTRY_BYTES + (decimals ? DECIMAL_BYTES : 0));
        }
      }
    }
    return { keys, entries, approxBytes: bytes, approxBytesPerKey: keys === 0 ? 0 : Math.round(bytes / keys) };
  }
}
