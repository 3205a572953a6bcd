// The entries of many velocity windows in a few typed arrays, each window a linked list through them. A decision
// adds numbers to arrays whose contents the garbage collector neither traces nor moves, where an object per
// window and entry made every decision leave dozens of small objects for the old generation's mark-compacts.
import { widened } from '../../typed-arrays.js';

/** What a pool keeps per entry besides its time. */
export interface PoolShape {
  /** Links back too, for a deque that pops at both ends (a running max). */
  readonly prev: boolean;
  /** An exact amount as a scaled integer (see amounts.ts). */
  readonly amount: boolean;
  /** A JS value: a value key (distinct) or a Decimal (amounts past exact integers). */
  readonly item: boolean;
}

const NONE = -1;

export class EntryPool {
  time: Float64Array;
  next: Int32Array;
  prev: Int32Array | null;
  amount: Float64Array | null;
  item: unknown[] | null;
  /** Entries in use. */
  live = 0;
  private free = NONE;
  private used = 0;

  constructor(shape: PoolShape, capacity = 64) {
    this.time = new Float64Array(capacity);
    this.next = new Int32Array(capacity);
    this.prev = shape.prev ? new Int32Array(capacity) : null;
    this.amount = shape.amount ? new Float64Array(capacity) : null;
    this.item = shape.item ? new Array<unknown>(capacity).fill(undefined) : null;
  }

  /** A free entry; its fields hold whatever its last use left. */
  alloc(): number {
    let e = this.free;
    if (e !== NONE) this.free = this.next[e]!;
    else {
      if (this.used === this.time.length) this.grow();
      e = this.used++;
    }
    this.live++;
    return e;
  }

  release(e: number): void {
    if (this.item !== null) this.item[e] = undefined;
    this.next[e] = this.free;
    this.free = e;
    this.live--;
  }

  /** Gives every entry an item from now on (a feature whose amounts became Decimals). */
  withItems(): void {
    this.item ??= new Array<unknown>(this.time.length).fill(undefined);
  }

  /** Bytes the pool's arrays take, used or not. */
  get bytes(): number {
    const perEntry = 8 + 4 + (this.prev ? 4 : 0) + (this.amount ? 8 : 0) + (this.item ? 8 : 0);
    return this.time.length * perEntry;
  }

  /** Doubles the capacity: a copy of every array, paid once per doubling. */
  private grow(): void {
    const size = this.time.length * 2;
    this.time = widened(this.time, new Float64Array(size));
    this.next = widened(this.next, new Int32Array(size));
    if (this.prev) this.prev = widened(this.prev, new Int32Array(size));
    if (this.amount) this.amount = widened(this.amount, new Float64Array(size));
    if (this.item) {
      const old = this.item.length;
      this.item.length = size;
      this.item.fill(undefined, old);
    }
  }
}
