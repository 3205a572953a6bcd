// The value keys of a distinct feature's windows (see series.ts for the windows). A window of up to SCAN_LIMIT
// entries is read by scanning its keys in the entry pool, since most hold a few; a longer one keeps a Map of
// occurrences per key, so its distinct count and membership are O(1).
import type { EntryPool } from './pool.js';

const NONE = -1;
/** Largest distinct window counted by scanning its value keys rather than through a Map. */
const SCAN_LIMIT = 8;

export type Key = string | number | boolean;

/** Takes one occurrence of key k out of a window's counts. */
export function uncount(counts: Map<Key, number>, k: Key): void {
  const left = (counts.get(k) ?? 0) - 1;
  if (left > 0) counts.set(k, left);
  else counts.delete(k);
}

export class DistinctKeys {
  /** Occurrences per value key, by record, for windows past SCAN_LIMIT entries. */
  private readonly seen = new Map<number, Map<Key, number>>();

  constructor(private readonly entries: EntryPool) {}

  /** Bytes of the Maps of counts. */
  get bytes(): number {
    let counted = 0;
    for (const m of this.seen.values()) counted += 64 + m.size * 40;
    return counted;
  }

  /** Record r's counts, when its window keeps them in a Map. */
  countsOf(r: number): Map<Key, number> | undefined {
    return this.seen.get(r);
  }

  /** Counts key k of an entry just linked into record r's window, which now holds `size` entries. */
  added(r: number, k: Key, size: number, heads: Int32Array): void {
    const counts = this.seen.get(r);
    if (counts !== undefined) counts.set(k, (counts.get(k) ?? 0) + 1);
    else if (size > SCAN_LIMIT) this.countAll(r, heads[r]!);
  }

  /** Takes one occurrence of key k out of record r's counts, if it keeps them. */
  removed(r: number, k: Key): void {
    const counts = this.seen.get(r);
    if (counts !== undefined) uncount(counts, k);
  }

  /** Forgets record r's counts: its window is empty. */
  clear(r: number): void {
    this.seen.delete(r);
  }

  /** Whether record r's window (its first entry at heads[r]) holds the value key `k`. */
  holds(r: number, k: Key, heads: Int32Array): boolean {
    if (r < 0) return false;
    const counts = this.seen.get(r);
    if (counts !== undefined) return counts.has(k);
    const pool = this.entries;
    for (let e = heads[r]!; e !== NONE; e = pool.next[e]!) if (pool.item![e] === k) return true;
    return false;
  }

  /** Number of distinct value keys in record r's window (its first entry at heads[r]). */
  count(r: number, heads: Int32Array): number {
    if (r < 0) return 0;
    const counts = this.seen.get(r);
    if (counts !== undefined) return counts.size;
    const { item, next } = this.entries;
    const first = heads[r]!;
    let n = 0;
    for (let e = first; e !== NONE; e = next[e]!) {
      let earlier = first;
      while (earlier !== e && item![earlier] !== item![e]) earlier = next[earlier]!;
      if (earlier === e) n++;
    }
    return n;
  }

  /** Counts record r's window in a Map once it holds more than SCAN_LIMIT entries. */
  private countAll(r: number, first: number): void {
    const counts = new Map<Key, number>();
    const pool = this.entries;
    for (let e = first; e !== NONE; e = pool.next[e]!) {
      const k = pool.item![e] as Key;
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    this.seen.set(r, counts);
  }
}
