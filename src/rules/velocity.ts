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
import { convert, decimalOfInt, readPath, valueKey, ZERO, type Value } from './values.js';

interface Source {
  readonly features: readonly FeatureSpec[];
  pastEnv(input: unknown): Env;
}

/** A queue over two parallel arrays with an amortised O(1) shift. */
class TimedQueue<V> {
  times: number[] = [];
  values: V[] = [];
  head = 0;

  get size(): number {
    return this.times.length - this.head;
  }

  push(t: number, v: V): void {
    this.times.push(t);
    this.values.push(v);
  }

  shift(): V {
    const v = this.values[this.head]!;
    this.head++;
    if (this.head > 32 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.values = this.values.slice(this.head);
      this.head = 0;
    }
    return v;
  }

  popBack(): void {
    this.times.pop();
    this.values.pop();
  }
}

class Window {
  readonly entries = new TimedQueue<Value>();
  sum: Decimal = ZERO;
  /** Decreasing values, for max (only for fn = max). */
  readonly peaks = new TimedQueue<Decimal>();
  /** Occurrences per distinct value (only for fn = distinct). */
  readonly seen = new Map<string | number | boolean, number>();

  constructor(private readonly spec: FeatureSpec) {}

  evict(now: number): void {
    const cutoff = now - this.spec.windowMs;
    const { entries, peaks } = this;
    while (entries.size > 0 && entries.times[entries.head]! <= cutoff) {
      const v = entries.shift();
      if (this.spec.fn === 'sum' || this.spec.fn === 'avg') this.sum = this.sum.minus(v as Decimal);
      if (this.spec.fn === 'distinct') {
        const k = valueKey(v as string);
        const n = this.seen.get(k)! - 1;
        if (n === 0) this.seen.delete(k);
        else this.seen.set(k, n);
      }
    }
    while (peaks.size > 0 && peaks.times[peaks.head]! <= cutoff) peaks.shift();
  }

  add(t: number, v: Value): void {
    this.entries.push(t, v);
    switch (this.spec.fn) {
      case 'sum':
      case 'avg':
        this.sum = this.sum.plus(v as Decimal);
        break;
      case 'max': {
        const { peaks } = this;
        while (peaks.size > 0 && peaks.values[peaks.values.length - 1]!.lte(v as Decimal)) peaks.popBack();
        peaks.push(t, v as Decimal);
        break;
      }
      case 'distinct': {
        const k = valueKey(v as string);
        this.seen.set(k, (this.seen.get(k) ?? 0) + 1);
        break;
      }
      case 'count':
        break;
    }
  }

  /** The aggregate over the window plus, when `extra` is not undefined, one more matching value. */
  result(extra: Value, includeExtra: boolean): Decimal | undefined {
    const n = this.entries.size + (includeExtra ? 1 : 0);
    switch (this.spec.fn) {
      case 'count':
        return decimalOfInt(n);
      case 'sum':
        return includeExtra ? this.sum.plus(extra as Decimal) : this.sum;
      case 'avg':
        return n === 0 ? undefined : (includeExtra ? this.sum.plus(extra as Decimal) : this.sum).div(n);
      case 'max': {
        const { peaks } = this;
        const top = peaks.size > 0 ? peaks.values[peaks.head]! : undefined;
        if (!includeExtra) return top;
        return top === undefined || (extra as Decimal).gt(top) ? (extra as Decimal) : top;
      }
      case 'distinct':
        return decimalOfInt(this.seen.size + (includeExtra && !this.seen.has(valueKey(extra as string)) ? 1 : 0));
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

export class VelocityStore {
  private readonly specs = new Map<string, FeatureSpec>();
  private readonly windows = new Map<string, Map<string, Window>>();
  private readonly keySegments = new Map<string, readonly string[]>();
  private latest = -Infinity;

  /** `previous`: a store for an older ruleset whose state is kept for the features both share. */
  constructor(private readonly source: Source, previous?: VelocityStore) {
    for (const spec of source.features) {
      this.specs.set(spec.id, spec);
      this.keySegments.set(spec.id, spec.keyPath.split('.'));
      this.windows.set(spec.id, previous?.windows.get(spec.id) ?? new Map());
    }
    if (previous) this.latest = previous.latest;
  }

  /** Features without state carried over from the previous store: the engine backfills them from the log. */
  static newFeatures(store: VelocityStore, previous: VelocityStore | undefined): string[] {
    return [...store.specs.keys()].filter((id) => !previous?.windows.has(id));
  }

  private keyOf(spec: FeatureSpec, env: Env): string | undefined {
    return convert(readPath(env.input, this.keySegments.get(spec.id)!), 'string') as string | undefined;
  }

  /** Adds a decided transaction. `only`: restrict to these feature ids (for backfilling new features). */
  record(tx: unknown, at: number, only?: ReadonlySet<string>): void {
    const t = Math.max(at, this.latest);
    this.latest = t;
    const env = this.source.pastEnv(tx);
    for (const spec of this.specs.values()) {
      if (only && !only.has(spec.id)) continue;
      const key = this.keyOf(spec, env);
      if (key === undefined || !spec.filter(env)) continue;
      const v = spec.value?.(env);
      if (spec.value && v === undefined) continue;
      const byKey = this.windows.get(spec.id)!;
      let w = byKey.get(key);
      if (!w) {
        w = new Window(spec);
        byKey.set(key, w);
      }
      w.evict(t);
      w.add(t, v);
    }
  }

  /** The aggregate over past transactions only. */
  value(specId: string, key: string, now: number): Decimal | undefined {
    const spec = this.spec(specId);
    const w = this.windows.get(specId)!.get(key) ?? new Window(spec);
    w.evict(now);
    return w.result(undefined, false);
  }

  /** The aggregate including the transaction being decided (`current`, an Env over it). */
  valueWith(specId: string, current: Env, now: number): Decimal | undefined {
    const spec = this.spec(specId);
    const key = this.keyOf(spec, current);
    if (key === undefined) return undefined;
    const w = this.windows.get(specId)!.get(key) ?? new Window(spec);
    w.evict(now);
    const v = spec.value?.(current);
    return w.result(v, spec.filter(current) && (!spec.value || v !== undefined));
  }

  private spec(id: string): FeatureSpec {
    const spec = this.specs.get(id);
    if (!spec) throw new Error(`unknown velocity feature ${id}`);
    return spec;
  }

  /** Drops expired entries and empty keys everywhere; call periodically to bound memory. */
  evictExpired(now: number): void {
    for (const byKey of this.windows.values()) {
      for (const [key, w] of byKey) {
        w.evict(now);
        if (w.entries.size === 0) byKey.delete(key);
      }
    }
  }

  stats(): VelocityStats {
    let keys = 0;
    let bytes = 0;
    let entries = 0;
    for (const [id, byKey] of this.windows) {
      const decimals = this.specs.get(id)!.fn !== 'count' && this.specs.get(id)!.fn !== 'distinct';
      for (const w of byKey.values()) {
        keys++;
        entries += w.entries.size;
        bytes += EMPTY_WINDOW_BYTES + (w.entries.size + w.peaks.size) * (ENTRY_BYTES + (decimals ? DECIMAL_BYTES : 0));
      }
    }
    return { keys, entries, approxBytes: bytes, approxBytesPerKey: keys === 0 ? 0 : Math.round(bytes / keys) };
  }
}
