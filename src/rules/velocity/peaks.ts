// The running max of a max feature's windows: per record, a deque of (time, amount) with the amounts decreasing,
// oldest first, in an EntryPool of its own linked both ways. A window's maximum is its deque's oldest entry. The
// Series owns the amounts' form (scaled integers or Decimals): it compares them and writes them into entries.
import type { Amount } from './series.js';
import { widened } from '../../typed-arrays.js';
import { EntryPool } from './pool.js';

const NONE = -1;

/** How the deque reads and writes amounts in its pool. */
export interface PeakAmounts {
  /** Sign of (peak p's amount - the amount n or `amount`). */
  comparePeak(p: number, n: number, amount: Amount): number;
  /** Writes the amount n or `amount` into entry e. */
  storePeak(e: number, n: number, amount: Amount): void;
  /** Peak p's amount, to put it back later (see `displaced`). */
  peakAmount(p: number): Amount;
}

/** An entry a newer, larger amount dropped from the deque: put back if that amount is taken out again. */
export interface DisplacedPeak {
  readonly t: number;
  readonly amount: Amount;
}

export class Peaks {
  readonly pool = new EntryPool({ prev: true, amount: true, item: false });
  heads: Int32Array;
  private tails: Int32Array;

  constructor(capacity: number) {
    this.heads = new Int32Array(capacity).fill(NONE);
    this.tails = new Int32Array(capacity).fill(NONE);
  }

  ensure(capacity: number): void {
    this.heads = widened(this.heads, new Int32Array(capacity).fill(NONE));
    this.tails = widened(this.tails, new Int32Array(capacity).fill(NONE));
  }

  get bytes(): number {
    return this.heads.length * 8 + this.pool.bytes;
  }

  /** The entry holding record r's maximum, NONE (-1) when its deque is empty or r < 0. */
  first(r: number): number {
    return r < 0 ? NONE : this.heads[r]!;
  }

  /**
   * Adds (t, amount): drops the entries before it that are no larger, and leaves it out when an entry after it is
   * at least as large. Usually t is the newest time and this is the classic pop-then-push.
   */
  add(r: number, t: number, n: number, amount: Amount, amounts: PeakAmounts, displaced?: DisplacedPeak[]): void {
    const { pool, heads, tails } = this;
    let before = tails[r]!;
    while (before !== NONE && pool.time[before]! > t) before = pool.prev![before]!;
    const after = before === NONE ? heads[r]! : pool.next[before]!;
    if (after !== NONE && amounts.comparePeak(after, n, amount) >= 0) return;
    while (before !== NONE && amounts.comparePeak(before, n, amount) <= 0) {
      displaced?.push({ t: pool.time[before]!, amount: amounts.peakAmount(before) });
      const earlier = pool.prev![before]!;
      pool.release(before);
      before = earlier;
    }
    const e = pool.alloc();
    // alloc() may have grown the pool's arrays: read them after it.
    const { time, next, prev } = pool;
    time[e] = t;
    amounts.storePeak(e, n, amount);
    prev![e] = before;
    next[e] = after;
    if (before === NONE) heads[r] = e;
    else next[before] = e;
    if (after === NONE) tails[r] = e;
    else prev![after] = e;
  }

  /** Takes out record r's entry at time t holding the amount n or `amount`, if the deque holds it. */
  remove(r: number, t: number, n: number, amount: Amount, amounts: PeakAmounts): void {
    const { pool, heads, tails } = this;
    let p = tails[r]!;
    while (p !== NONE && !(pool.time[p] === t && amounts.comparePeak(p, n, amount) === 0)) p = pool.prev![p]!;
    if (p === NONE) return;
    const before = pool.prev![p]!;
    const after = pool.next[p]!;
    if (before === NONE) heads[r] = after;
    else pool.next[before] = after;
    if (after === NONE) tails[r] = before;
    else pool.prev![after] = before;
    pool.release(p);
  }

  /** Drops record r's entries at or before `cutoff`. */
  evict(r: number, cutoff: number): void {
    const pool = this.pool;
    let p = this.heads[r]!;
    while (p !== NONE && pool.time[p]! <= cutoff) {
      const after = pool.next[p]!;
      pool.release(p);
      p = after;
    }
    this.heads[r] = p;
    if (p === NONE) this.tails[r] = NONE;
    else pool.prev![p] = NONE;
  }
}
