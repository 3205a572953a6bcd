// Which references may already have a decision, without a read of the database: a Bloom filter (1% false
// positives) over reference keys (events.ts) that grows by adding a filter twice as large whenever the current one
// is full. A "maybe" costs a lookup by reference; a "no" is certain, so most new references skip the database.
const BITS_PER_ID = 10;
const PROBES = 7;

/** One filter of the chain as a snapshot keeps it. */
export interface BloomSnapshot {
  readonly capacity: number;
  readonly count: number;
  readonly bits: Uint32Array;
}

class Bloom {
  readonly bits: Uint32Array;
  count = 0;
  constructor(
    readonly capacity: number,
    bits?: Uint32Array,
  ) {
    this.bits = bits ?? new Uint32Array(Math.ceil((capacity * BITS_PER_ID) / 32));
  }
  /**
   * Double hashing over the first two 32-bit words of the (already uniformly random) key. Snapshots taken when
   * the filter held 24-digit transaction ids probe the same bits: those ids began with today's 16-digit key.
   */
  #probe(id: string, visit: (word: number, mask: number) => boolean): boolean {
    const h1 = parseInt(id.slice(0, 8), 16);
    const h2 = parseInt(id.slice(8, 16), 16) | 1;
    const size = this.bits.length * 32;
    for (let i = 0; i < PROBES; i++) {
      const bit = (h1 + Math.imul(i, h2)) >>> 0;
      const at = bit % size;
      if (!visit(at >>> 5, 1 << (at & 31))) return false;
    }
    return true;
  }
  add(id: string): void {
    this.#probe(id, (w, m) => {
      this.bits[w]! |= m;
      return true;
    });
    this.count++;
  }
  has(id: string): boolean {
    return this.#probe(id, (w, m) => (this.bits[w]! & m) !== 0);
  }
}

export class DecidedFilter {
  readonly #filters: Bloom[] = [new Bloom(1 << 16)];

  /** Shares the live bit arrays: serialise it before anything else is added. */
  snapshot(): BloomSnapshot[] {
    return this.#filters.map(({ capacity, count, bits }) => ({ capacity, count, bits }));
  }

  static restored(snapshot: readonly BloomSnapshot[]): DecidedFilter {
    const filter = new DecidedFilter();
    if (snapshot.length > 0)
      filter.#filters.splice(0, 1, ...snapshot.map((s) => Object.assign(new Bloom(s.capacity, s.bits), { count: s.count })));
    return filter;
  }

  add(referenceKey: string): void {
    let last = this.#filters[this.#filters.length - 1]!;
    if (last.count >= last.capacity) this.#filters.push((last = new Bloom(last.capacity * 2)));
    last.add(referenceKey);
  }

  mayHave(referenceKey: string): boolean {
    return this.#filters.some((f) => f.has(referenceKey));
  }
}
