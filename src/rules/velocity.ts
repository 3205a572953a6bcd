// Rolling velocity aggregates, in memory, for exactly the FeatureSpecs a ruleset needs. Per (feature, key)
// a time-ordered deque of the matching transactions with a running Decimal sum, a monotonic deque for max
// and a value→count map for distinct; entries leave the deque when they fall out of the window.
//
// Semantics: an entry recorded at time t is inside the window at `now` iff now - windowMs < t <= now.
// valueWith() includes the transaction being decided ("this is the 5th transfer in 10 minutes").
// Times must not go backwards: a record older than the latest one is treated as happening at the latest time.
import type { Decimal } from 'decimal.js';
import type { Env } from './env.js';
import type { FeatureSpec } from './features.js';
import { decimalOfInt, readPath, toText, valueKey, ZERO, type Value } from './values.js';

interface Source {
  readonly features: readonly FeatureSpec[];
  pastEnv(input: unknown): Env;
}

/** A queue over two parallel arrays with an amortised O(1) shift; `values` is null when only times matter. */
class TimedQueue<V> {
  times: number[];
  values: V[] | null;
  head = 0;

  // Most keys hold one or two entries: starting from one-element arrays keeps a fresh key small.
  constructor(t: number, v: V, withValues: boolean) {
    this.times = [t];
    this.values = withValues ? [v] : null;
  }

  get size(): number {
    return this.times.length - this.head;
  }

  push(t: number, v: V): void {
    this.times.push(t);
    this.values?.push(v);
  }

  /** Drops the oldest entry and returns its value (undefined without values). */
  shift(): V | undefined {
    const v = this.values?.[this.head];
    this.head++;
    if (this.head === this.times.length) {
      // Empty: release the old entries now rather than when the head passes the compaction threshold.
      this.times = [];
      if (this.values) this.values = [];
      this.head = 0;
    } else if (this.head > 32 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      if (this.values) this.values = this.values.slice(this.head);
      this.head = 0;
    }
    return v;
  }

  popBack(): void {
    this.times.pop();
    this.values?.pop();
  }
}

/** Running aggregate of one (feature, key): every read is O(1) after amortised O(1) eviction. */
class Window {
  /** Times of the matching transactions, with their values when eviction must undo them (sum, avg, distinct). */
  entries: TimedQueue<Value> | null = null;
  sum: Decimal = ZERO;
  /** Decreasing values, for max (only for fn = max). */
  peaks: TimedQueue<Decimal> | null = null;
  /** Occurrences per distinct value (only for fn = distinct). */
  seen: Map<string | number | boolean, number> | null = null;

  constructor(private readonly spec: FeatureSpec) {}

  get size(): number {
    return this.entries === null ? 0 : this.entries.size;
  }

  evict(now: number): void {
    const cutoff = now - this.spec.windowMs;
    const { entries, peaks } = this;
    if (entries === null || entries.times[entries.head]! > cutoff) return;
    const fn = this.spec.fn;
    while (entries.size > 0 && entries.times[entries.head]! <= cutoff) {
      const v = entries.shift();
      if (fn === 'sum' || fn === 'avg') this.sum = this.sum.minus(v as Decimal);
      else if (fn === 'distinct') {
        const seen = this.seen!;
        const k = valueKey(v as string);
        const n = seen.get(k)! - 1;
        if (n === 0) seen.delete(k);
        else seen.set(k, n);
      }
    }
    if (peaks !== null) while (peaks.size > 0 && peaks.times[peaks.head]! <= cutoff) peaks.shift();
  }

  add(t: number, v: Value): void {
    const fn = this.spec.fn;
    if (this.entries === null) this.entries = new TimedQueue(t, v, fn === 'sum' || fn === 'avg' || fn === 'distinct');
    else this.entries.push(t, v);
    switch (fn) {
      case 'sum':
      case 'avg':
        this.sum = this.sum.plus(v as Decimal);
        break;
      case 'max': {
        const peaks = this.peaks;
        if (peaks === null || peaks.size === 0) {
          this.peaks = new TimedQueue(t, v as Decimal, true);
          break;
        }
        const values = peaks.values!;
        while (peaks.size > 0 && values[values.length - 1]!.lte(v as Decimal)) peaks.popBack();
        peaks.push(t, v as Decimal);
        break;
      }
      case 'distinct': {
        const k = valueKey(v as string);
        this.seen ??= new Map();
        this.seen.set(k, (this.seen.get(k) ?? 0) + 1);
        break;
      }
      case 'count':
        break;
    }
  }

  /** The aggregate over the window plus, when `includeExtra`, one more matching value `extra`. */
  result(extra: Value, includeExtra: boolean): Decimal | undefined {
    const n = this.size + (includeExtra ? 1 : 0);
    switch (this.spec.fn) {
      case 'count':
        return decimalOfInt(n);
      case 'sum':
        return includeExtra ? this.sum.plus(extra as Decimal) : this.sum;
      case 'avg':
        return n === 0 ? undefined : (includeExtra ? this.sum.plus(extra as Decimal) : this.sum).div(n);
      case 'max': {
        const { peaks } = this;
        const top = peaks !== null && peaks.size > 0 ? peaks.values![peaks.head]! : undefined;
        if (!includeExtra) return top;
        return top === undefined || (extra as Decimal).gt(top) ? (extra as Decimal) : top;
      }
      case 'distinct': {
        const distinct = this.seen === null ? 0 : this.seen.size;
        return decimalOfInt(distinct + (includeExtra && !this.seen?.has(valueKey(extra as string)) ? 1 : 0));
      }
    }
  }
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
  readonly index: number;
  readonly spec: FeatureSpec;
  readonly keySegments: readonly string[];
  readonly windows: Map<string, Window>;
  /** Stands for every key without a window: never added to, so reads allocate nothing. */
  readonly empty: Window;
}

export class VelocityStore {
  private readonly features = new Map<string, Feature>();
  private readonly list: Feature[] = [];
  private latest = -Infinity;
  /**
   * Windows valueWith() found for the Env of the request being decided, by feature index, so that recording the
   * same request next (RulesRuntime.decide) does not look its keys up again in maps of up to millions of keys.
   */
  private memoEnv: Env | undefined;
  private readonly memo: (Window | undefined)[] = [];

  /** `previous`: a store for an older ruleset whose state is kept for the features both share. */
  constructor(private readonly source: Source, previous?: VelocityStore) {
    for (const spec of source.features) {
      const feature: Feature = {
        index: this.list.length,
        spec,
        keySegments: spec.keyPath.split('.'),
        windows: previous?.features.get(spec.id)?.windows ?? new Map(),
        empty: new Window(spec),
      };
      this.features.set(spec.id, feature);
      this.list.push(feature);
      this.memo.push(undefined);
    }
    if (previous) this.latest = previous.latest;
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
  recordEnv(env: Env, at: number, only?: ReadonlySet<string>): void {
    const t = Math.max(at, this.latest);
    this.latest = t;
    const memo = env === this.memoEnv ? this.memo : undefined;
    this.memoEnv = undefined;
    for (let i = 0; i < this.list.length; i++) {
      const { spec, keySegments, windows } = this.list[i]!;
      if (only && !only.has(spec.id)) continue;
      const key = toText(readPath(env.input, keySegments));
      if (key === undefined || !spec.filter(env)) continue;
      const v = spec.value?.(env);
      if (spec.value && v === undefined) continue;
      // evictExpired() only drops empty windows, so a remembered window that still holds entries is in the map.
      const remembered = memo?.[i];
      let w = remembered !== undefined && remembered.size > 0 ? remembered : windows.get(key);
      if (!w) {
        w = new Window(spec);
        windows.set(key, w);
      } else w.evict(t);
      w.add(t, v);
    }
  }

  /** The aggregate over past transactions only. */
  value(specId: string, key: string, now: number): Decimal | undefined {
    const f = this.feature(specId);
    const w = f.windows.get(key) ?? f.empty;
    w.evict(now);
    return w.result(undefined, false);
  }

  /** The aggregate including the transaction being decided (`current`, an Env over it). */
  valueWith(specId: string, current: Env, now: number): Decimal | undefined {
    const { index, spec, keySegments, windows, empty } = this.feature(specId);
    if (current !== this.memoEnv) {
      this.memoEnv = current;
      this.memo.fill(undefined);
    }
    let w = this.memo[index];
    if (w === undefined) {
      const key = toText(readPath(current.input, keySegments));
      if (key === undefined) return undefined;
      w = windows.get(key);
      this.memo[index] = w;
      w ??= empty;
    }
    w.evict(now);
    const v = spec.value?.(current);
    return w.result(v, spec.filter(current) && (!spec.value || v !== undefined));
  }

  private feature(id: string): Feature {
    const f = this.features.get(id);
    if (!f) throw new Error(`unknown velocity feature ${id}`);
    return f;
  }

  /** Drops expired entries and empty keys everywhere; call periodically to bound memory. */
  evictExpired(now: number): void {
    for (const { windows } of this.list) {
      for (const [key, w] of windows) {
        w.evict(now);
        if (w.size === 0) windows.delete(key);
      }
    }
  }

  stats(): VelocityStats {
    let keys = 0;
    let bytes = 0;
    let entries = 0;
    for (const { spec, windows } of this.list) {
      const decimals = spec.fn !== 'count' && spec.fn !== 'distinct';
      for (const w of windows.values()) {
        keys++;
        entries += w.size;
        bytes += EMPTY_WINDOW_BYTES + (w.size + (w.peaks?.size ?? 0)) * (ENTRY_BYTES + (decimals ? DECIMAL_BYTES : 0));
      }
    }
    return { keys, entries, approxBytes: bytes, approxBytesPerKey: keys === 0 ? 0 : Math.round(bytes / keys) };
  }
}
