// One velocity window: the entries of one (feature, key) inside the feature's time window, with the running
// aggregate over them. See velocity.ts for the store that holds them and for the window semantics.
import type { Decimal } from 'decimal.js';
import type { FeatureSpec } from './features.js';
import { decimalOfInt, valueKey, ZERO, type Value } from './values.js';

/** Largest distinct window counted by scanning its value keys rather than through a Map. */
const SCAN_LIMIT = 8;

/** Decreasing values with their times, for max: a queue with an amortised O(1) shift. */
export class Peaks {
  times: number[];
  values: Decimal[];
  head = 0;

  constructor(t: number, v: Decimal) {
    this.times = [t];
    this.values = [v];
  }

  get size(): number {
    return this.times.length - this.head;
  }

  /**
   * Adds (t, v): drops the entries before it that are no larger, and leaves it out when an entry after it is
   * at least as large. Usually t is the newest time and this is the classic pop-then-push.
   */
  add(t: number, v: Decimal): void {
    const { times, values } = this;
    let k = times.length;
    while (k > this.head && times[k - 1]! > t) k--;
    if (k < times.length && values[k]!.gte(v)) return;
    let j = k;
    while (j > this.head && values[j - 1]!.lte(v)) j--;
    if (j === times.length) {
      times.push(t);
      values.push(v);
    } else {
      times.splice(j, k - j, t);
      values.splice(j, k - j, v);
    }
  }

  shift(): void {
    this.head++;
    if (this.head > 32 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.values = this.values.slice(this.head);
      this.head = 0;
    }
  }
}

/**
 * Running aggregate of one (feature, key): every read is O(1) after amortised O(1) eviction. The times (and
 * values, when eviction must undo them) live in the window itself, oldest at `head`, so a read touches one
 * object and its arrays rather than a chain of queue objects.
 */
export class Window {
  times: number[] = [];
  /**
   * Values parallel to `times` for sum and avg (Decimals, or their text after a restore), value keys for
   * distinct; null when only times matter.
   */
  values: Value[] | null = null;
  head = 0;
  sum: Decimal = ZERO;
  /** Only for fn = max. */
  peaks: Peaks | null = null;
  /**
   * Occurrences per distinct value key (only for fn = distinct), built once the window holds more than
   * SCAN_LIMIT entries: most windows hold a few, and scanning them costs less time and memory than a Map.
   */
  seen: Map<string | number | boolean, number> | null = null;

  constructor(readonly spec: FeatureSpec) {}

  get size(): number {
    return this.times.length - this.head;
  }

  evict(now: number): void {
    const cutoff = now - this.spec.windowMs;
    const times = this.times;
    let head = this.head;
    if (head === times.length || times[head]! > cutoff) return;
    const { values, spec } = this;
    const fn = spec.fn;
    while (head < times.length && times[head]! <= cutoff) {
      if (values !== null) {
        const v = values[head];
        values[head] = undefined;
        if (fn === 'distinct') {
          const seen = this.seen;
          if (seen !== null) {
            const k = v as string;
            const n = seen.get(k)! - 1;
            if (n === 0) seen.delete(k);
            else seen.set(k, n);
          }
        } else this.sum = this.sum.minus(v as Decimal | string);
      }
      head++;
    }
    if (head === times.length) {
      // Empty: release the old entries now rather than when the head passes the compaction threshold.
      this.times = [];
      if (values !== null) this.values = [];
      this.seen = null;
      this.sum = ZERO;
      head = 0;
    } else if (head > 32 && head * 2 > times.length) {
      this.times = times.slice(head);
      if (values !== null) this.values = values.slice(head);
      head = 0;
    }
    this.head = head;
    const peaks = this.peaks;
    if (peaks !== null) while (peaks.size > 0 && peaks.times[peaks.head]! <= cutoff) peaks.shift();
  }

  add(t: number, value: Value): void {
    const fn = this.spec.fn;
    // Kept as a Decimal for sum, avg and max, as its value key for distinct.
    const v = fn === 'distinct' ? valueKey(value as string) : value;
    const withValues = fn === 'sum' || fn === 'avg' || fn === 'distinct';
    const times = this.times;
    // Most keys hold one or two entries: starting from one-element arrays keeps a fresh window small.
    if (times.length === 0) {
      this.times = [t];
      if (withValues) this.values = [v];
    } else if (times.length === this.head || t >= times[times.length - 1]!) {
      times.push(t);
      if (withValues) this.values!.push(v);
    } else {
      // A late entry (a replay applies decisions in log order, which can trail decision order by a commit) goes
      // in time order, so eviction stays a cut of the oldest entries and the state matches the live one.
      let i = times.length;
      while (i > this.head && times[i - 1]! > t) i--;
      times.splice(i, 0, t);
      if (withValues) this.values!.splice(i, 0, v);
    }
    switch (fn) {
      case 'sum':
      case 'avg':
        // Alone in the window, the value is the sum: Decimals are immutable, so the window keeps one, not two.
        this.sum = this.size === 1 ? (v as Decimal) : this.sum.plus(v as Decimal);
        break;
      case 'max': {
        const peaks = this.peaks;
        if (peaks === null || peaks.size === 0) this.peaks = new Peaks(t, v as Decimal);
        else peaks.add(t, v as Decimal);
        break;
      }
      case 'distinct': {
        const seen = this.seen;
        if (seen !== null) seen.set(v as string, (seen.get(v as string) ?? 0) + 1);
        else this.countDistinct();
        break;
      }
      case 'count':
        break;
    }
  }

  /** Counts a distinct window's value keys in a Map once it holds more than SCAN_LIMIT of them. */
  countDistinct(): void {
    if (this.seen !== null || this.size <= SCAN_LIMIT) return;
    const counts = new Map<string | number | boolean, number>();
    const values = this.values as (string | number | boolean)[];
    for (let i = this.head; i < values.length; i++) counts.set(values[i]!, (counts.get(values[i]!) ?? 0) + 1);
    this.seen = counts;
  }

  /** Whether a distinct window holds the value key `k`. */
  private holds(k: string | number | boolean): boolean {
    if (this.seen !== null) return this.seen.has(k);
    const values = this.values;
    if (values === null) return false;
    for (let i = this.head; i < values.length; i++) if (values[i] === k) return true;
    return false;
  }

  /** Number of distinct value keys in a distinct window. */
  private distinctCount(): number {
    if (this.seen !== null) return this.seen.size;
    const values = this.values;
    if (values === null) return 0;
    let n = 0;
    for (let i = this.head; i < values.length; i++) {
      let j = this.head;
      while (j < i && values[j] !== values[i]) j++;
      if (j === i) n++;
    }
    return n;
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
        const top = peaks !== null && peaks.size > 0 ? peaks.values[peaks.head]! : undefined;
        if (!includeExtra) return top;
        return top === undefined || (extra as Decimal).gt(top) ? (extra as Decimal) : top;
      }
      case 'distinct': {
        return decimalOfInt(this.distinctCount() + (includeExtra && !this.holds(valueKey(extra as string)) ? 1 : 0));
      }
    }
  }
}
