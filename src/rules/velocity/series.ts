// The windows of one velocity feature, one per key record (see windows.ts for the store and the semantics).
// A window is a time-ordered linked list of entries in the feature's EntryPool, oldest at `head`; its size and
// running aggregate live in columns indexed by record, a distinct feature's value keys in DistinctKeys
// (distinct.ts). Reads are O(1) after amortised O(1) eviction.
import type { Decimal } from 'decimal.js';
import type { FeatureSpec } from '../features.js';
import { decimalOfScaled, ENTRY_LIMIT, MAX_SCALE, placesOfText, POW10, SUM_LIMIT, textOfScaled } from './amounts.js';
import { Peaks, type DisplacedPeak, type PeakAmounts } from './peaks.js';
import { widened } from '../../typed-arrays.js';
import { DistinctKeys, uncount, type Key } from './distinct.js';
import { EntryPool } from './pool.js';
import { Dec, decimalOfInt, valueKey, ZERO, type Value } from '../values.js';

const NONE = -1;

/** An amount as the store hands it over: its Decimal (or snapshot text), nearest double and decimal places. */
export interface Amount {
  value: Decimal | string;
  num: number;
  places: number;
}

export class Series implements PeakAmounts {
  readonly entries: EntryPool;
  /** The running max's deque (max only). */
  private readonly peaks: Peaks | null;
  private head: Int32Array;
  private tail: Int32Array;
  private size: Int32Array;
  /** Running sums as scaled integers (sum, avg) while the feature's amounts are exact. */
  private sum: Float64Array | null;
  /** Running sums once they are Decimals. */
  private sums: (Decimal | undefined)[] | null = null;
  /** The value keys' counts (distinct only). */
  private readonly distinct: DistinctKeys | null;
  /** Decimal places of every scaled amount of the feature. */
  private scale = 0;
  /** False once an amount or a sum did not fit a scaled integer: amounts are Decimals in the pools' items. */
  private exact = true;
  private readonly summed: boolean;

  constructor(
    readonly spec: FeatureSpec,
    capacity: number,
  ) {
    const fn = spec.fn;
    this.summed = fn === 'sum' || fn === 'avg';
    this.entries = new EntryPool({ prev: false, amount: this.summed, item: fn === 'distinct' });
    this.peaks = fn === 'max' ? new Peaks(capacity) : null;
    this.distinct = fn === 'distinct' ? new DistinctKeys(this.entries) : null;
    this.head = new Int32Array(capacity).fill(NONE);
    this.tail = new Int32Array(capacity).fill(NONE);
    this.size = new Int32Array(capacity);
    this.sum = this.summed ? new Float64Array(capacity) : null;
  }

  /** Makes room for records below `capacity`. */
  ensure(capacity: number): void {
    if (capacity <= this.head.length) return;
    this.head = widened(this.head, new Int32Array(capacity).fill(NONE));
    this.tail = widened(this.tail, new Int32Array(capacity).fill(NONE));
    this.size = widened(this.size, new Int32Array(capacity));
    if (this.sum) this.sum = widened(this.sum, new Float64Array(capacity));
    if (this.sums) this.sums.length = capacity;
    this.peaks?.ensure(capacity);
  }

  /** Entries in record r's window; r < 0 stands for a key without a record. */
  sizeOf(r: number): number {
    return r < 0 ? 0 : this.size[r]!;
  }

  /** Bytes of the arrays behind the feature, used or not, and of its value-key counts. */
  get bytes(): number {
    const perRecord = 12 + (this.sum ? 8 : 0) + (this.sums ? 8 : 0);
    return this.head.length * perRecord + this.entries.bytes + (this.peaks?.bytes ?? 0) + (this.distinct?.bytes ?? 0);
  }

  /** Drops the entries of record r's window at or before now - windowMs. */
  evict(r: number, now: number): void {
    if (r < 0) return;
    const pool = this.entries;
    const { time, next } = pool;
    let e = this.head[r]!;
    const cutoff = now - this.spec.windowMs;
    if (e === NONE || time[e]! > cutoff) return;
    const counts = this.distinct?.countsOf(r);
    let size = this.size[r]!;
    while (e !== NONE && time[e]! <= cutoff) {
      if (this.summed) this.forget(r, e);
      else if (counts !== undefined) uncount(counts, pool.item![e] as Key);
      const after = next[e]!;
      pool.release(e);
      e = after;
      size--;
    }
    this.head[r] = e;
    this.size[r] = size;
    if (e === NONE) this.clear(r);
    else if (this.summed && this.exact && Math.abs(this.sum![r]!) > SUM_LIMIT) this.toDecimals();
    this.peaks?.evict(r, cutoff);
  }

  /** Adds a transaction at time t: `value` is its amount (sum, avg, max), its value (distinct) or nothing (count). */
  add(r: number, t: number, value: Value, amount: Amount | undefined, displaced?: DisplacedPeak[]): void {
    const n = amount === undefined ? 0 : this.fit(amount);
    this.push(r, t, value, n, amount);
    this.peaks?.add(r, t, n, amount!, this, displaced);
  }

  /**
   * Takes out what add(r, t, value, amount) put in: one entry of record r's window at time t with this value (any
   * one of equal entries, which count alike), and from the max deque the entry at t, putting back the entries it
   * had displaced. An entry evicted meanwhile is gone already, and so are the older ones it displaced.
   */
  remove(r: number, t: number, value: Value, amount: Amount | undefined, displaced: readonly DisplacedPeak[]): void {
    const pool = this.entries;
    const { time, next } = pool;
    const n = amount === undefined || !this.exact ? 0 : Math.round(amount.num * POW10[this.scale]!);
    const k = this.spec.fn === 'distinct' ? valueKey(value as string) : undefined;
    let before = NONE;
    let e = this.head[r]!;
    while (e !== NONE && !(time[e] === t && this.sameEntry(e, n, amount, k))) {
      before = e;
      e = next[e]!;
    }
    if (e === NONE) return;
    const after = next[e]!;
    if (before === NONE) this.head[r] = after;
    else next[before] = after;
    if (this.tail[r] === e) this.tail[r] = before;
    const size = --this.size[r]!;
    if (this.summed) this.forget(r, e);
    else if (k !== undefined) this.distinct!.removed(r, k);
    pool.release(e);
    if (size === 0) this.clear(r);
    if (this.peaks) {
      this.peaks.remove(r, t, n, amount!, this);
      for (const d of displaced) this.peaks.add(r, d.t, this.fit(d.amount), d.amount, this);
    }
  }

  /** Whether entry e holds the amount (scaled n, or `amount` once Decimals) or the value key k its feature keeps. */
  private sameEntry(e: number, n: number, amount: Amount | undefined, k: Key | undefined): boolean {
    const pool = this.entries;
    if (this.summed) return this.exact ? pool.amount![e] === n : (pool.item![e] as Decimal).eq(decimalOf(amount!));
    return k === undefined || pool.item![e] === k;
  }

  peakAmount(p: number): Amount {
    const text = this.amountText(this.peaks!.pool, p);
    return { value: text, num: Number(text), places: placesOfText(text) };
  }

  /** The aggregate over record r's window plus, when `includeExtra`, one more matching value `extra`. */
  result(r: number, extra: Value, includeExtra: boolean): Decimal | undefined {
    const n = this.sizeOf(r) + (includeExtra ? 1 : 0);
    switch (this.spec.fn) {
      case 'count':
        return decimalOfInt(n);
      case 'sum':
        return this.total(r, extra, includeExtra);
      case 'avg':
        return n === 0 ? undefined : this.total(r, extra, includeExtra).div(n);
      case 'max': {
        const top = this.top(r);
        if (!includeExtra) return top;
        return top === undefined || (extra as Decimal).gt(top) ? (extra as Decimal) : top;
      }
      case 'distinct':
        return decimalOfInt(
          this.distinct!.count(r, this.head) + (includeExtra && !this.distinct!.holds(r, valueKey(extra as string), this.head) ? 1 : 0),
        );
    }
  }

  /** What each entry keeps besides its time: amounts (sum, avg), value keys (distinct), or nothing (count, max). */
  get valued(): 'amounts' | 'keys' | null {
    return this.summed ? 'amounts' : this.spec.fn === 'distinct' ? 'keys' : null;
  }

  /** Whether the feature keeps a max deque beside its windows. */
  get hasPeaks(): boolean {
    return this.peaks !== null;
  }

  /** Record r's entries, oldest first, with their amounts as exact text, their value keys, or nothing. */
  forEachEntry(r: number, visit: (time: number, value: string | Key | undefined) => void): void {
    const pool = this.entries;
    const valued = this.valued;
    for (let e = this.head[r]!; e !== NONE; e = pool.next[e]!) {
      visit(pool.time[e]!, valued === 'amounts' ? this.amountText(pool, e) : valued === 'keys' ? (pool.item![e] as Key) : undefined);
    }
  }

  /** Record r's max deque, oldest first, amounts as exact text. */
  forEachPeak(r: number, visit: (time: number, amount: string) => void): void {
    const { pool } = this.peaks!;
    for (let p = this.peaks!.first(r); p !== NONE; p = pool.next[p]!) visit(pool.time[p]!, this.amountText(pool, p));
  }

  /** Adds an entry as a snapshot holds it: like add(), but the max deque is restored apart (restorePeak). */
  restoreEntry(r: number, t: number, value: Value | string, amount: Amount | undefined): void {
    this.push(r, t, value, amount === undefined ? 0 : this.fit(amount), amount);
  }

  restorePeak(r: number, t: number, amount: Amount): void {
    this.peaks!.add(r, t, this.fit(amount), amount, this);
  }

  private amountText(pool: EntryPool, e: number): string {
    return this.exact ? textOfScaled(pool.amount![e]!, this.scale) : (pool.item![e] as Decimal).toString();
  }

  /** Links a new entry into record r's window in time order and adds it to the running sum or counts. */
  private push(r: number, t: number, value: Value | string, n: number, amount: Amount | undefined): void {
    const pool = this.entries;
    const e = pool.alloc();
    const { time, next } = pool;
    time[e] = t;
    const last = this.tail[r]!;
    if (last === NONE) {
      next[e] = NONE;
      this.head[r] = this.tail[r] = e;
    } else if (t >= time[last]!) {
      next[e] = NONE;
      next[last] = e;
      this.tail[r] = e;
    } else {
      // A late entry (a replay applies decisions in log order, which can trail decision order by a commit) goes
      // in time order, so eviction stays a cut of the oldest entries and the state matches the live one.
      let before = NONE;
      let after = this.head[r]!;
      while (time[after]! <= t) {
        before = after;
        after = next[after]!;
      }
      next[e] = after;
      if (before === NONE) this.head[r] = e;
      else next[before] = e;
    }
    const size = ++this.size[r]!;
    if (this.summed) {
      if (this.exact) {
        pool.amount![e] = n;
        const sum = (this.sum![r] = size === 1 ? n : this.sum![r]! + n);
        if (Math.abs(sum) > SUM_LIMIT) this.toDecimals();
      } else {
        const v = decimalOf(amount!);
        pool.item![e] = v;
        // Alone in the window, the value is the sum: Decimals are immutable, so the window keeps one, not two.
        this.sums![r] = size === 1 ? v : this.sums![r]!.plus(v);
      }
    } else if (this.spec.fn === 'distinct') {
      const k = valueKey(value as string);
      pool.item![e] = k;
      this.distinct!.added(r, k, size, this.head);
    }
  }

  /** Takes entry e's amount out of record r's running sum. */
  private forget(r: number, e: number): void {
    if (this.exact) this.sum![r]! -= this.entries.amount![e]!;
    else this.sums![r] = this.sums![r]!.minus(this.entries.item![e] as Decimal);
  }

  private clear(r: number): void {
    this.tail[r] = NONE;
    this.size[r] = 0;
    if (this.sum) this.sum[r] = 0;
    if (this.sums) this.sums[r] = undefined;
    this.distinct?.clear(r);
  }

  /** The amount as a scaled integer at the feature's scale, rescaling first if it has more places; NaN once Decimals. */
  private fit(amount: Amount): number {
    if (this.exact && amount.places > this.scale) {
      if (amount.places > MAX_SCALE) this.toDecimals();
      else this.rescale(amount.places);
    }
    if (!this.exact) return NaN;
    const n = Math.round(amount.num * POW10[this.scale]!);
    if (Math.abs(n) <= ENTRY_LIMIT) return n;
    this.toDecimals();
    return NaN;
  }

  /** Every record with a window (a max's peaks are entries of its window). */
  private *live(): Generator<number> {
    for (let r = 0; r < this.head.length; r++) if (this.head[r] !== NONE) yield r;
  }

  /** Moves every scaled amount to `scale` places, or to Decimals if one would not fit: rare, O(entries). */
  private rescale(scale: number): void {
    const factor = POW10[scale - this.scale]!;
    const amounts = this.amountPools();
    for (const r of this.live()) {
      if (this.sum && Math.abs(this.sum[r]! * factor) > SUM_LIMIT) {
        this.toDecimals();
        return;
      }
      for (const [pool, heads] of amounts)
        for (let e = heads[r]!; e !== NONE; e = pool.next[e]!)
          if (Math.abs(pool.amount![e]! * factor) > ENTRY_LIMIT) {
            this.toDecimals();
            return;
          }
    }
    for (const r of this.live()) {
      if (this.sum) this.sum[r]! *= factor;
      for (const [pool, heads] of amounts) for (let e = heads[r]!; e !== NONE; e = pool.next[e]!) pool.amount![e]! *= factor;
    }
    this.scale = scale;
  }

  /** From scaled integers to Decimals, for good: the feature's amounts no longer fit them. */
  private toDecimals(): void {
    const amounts = this.amountPools();
    for (const [pool] of amounts) pool.withItems();
    if (this.sum) this.sums = new Array<Decimal | undefined>(this.head.length).fill(undefined);
    for (const r of this.live()) {
      if (this.sums && this.head[r] !== NONE) this.sums[r] = decimalOfScaled(this.sum![r]!, this.scale);
      for (const [pool, heads] of amounts)
        for (let e = heads[r]!; e !== NONE; e = pool.next[e]!) pool.item![e] = decimalOfScaled(pool.amount![e]!, this.scale);
    }
    this.exact = false;
  }

  private amountPools(): [EntryPool, Int32Array][] {
    if (this.peaks) return [[this.peaks.pool, this.peaks.heads]];
    return this.summed ? [[this.entries, this.head]] : [];
  }

  private total(r: number, extra: Value, includeExtra: boolean): Decimal {
    let base: Decimal = ZERO;
    if (this.sizeOf(r) > 0) base = this.exact ? decimalOfScaled(this.sum![r]!, this.scale) : this.sums![r]!;
    return includeExtra ? base.plus(extra as Decimal) : base;
  }

  private top(r: number): Decimal | undefined {
    const p = this.peaks!.first(r);
    if (p === NONE) return undefined;
    const { pool } = this.peaks!;
    return this.exact ? decimalOfScaled(pool.amount![p]!, this.scale) : (pool.item![p] as Decimal);
  }

  comparePeak(p: number, n: number, amount: Amount): number {
    const { pool } = this.peaks!;
    if (this.exact) return pool.amount![p]! - n;
    return (pool.item![p] as Decimal).cmp(decimalOf(amount));
  }

  storePeak(e: number, n: number, amount: Amount): void {
    const { pool } = this.peaks!;
    if (this.exact) pool.amount![e] = n;
    else pool.item![e] = decimalOf(amount);
  }
}

function decimalOf(amount: Amount): Decimal {
  return typeof amount.value === 'string' ? new Dec(amount.value) : amount.value;
}
