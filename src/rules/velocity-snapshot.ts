// Velocity windows in a state snapshot, column by column: one entry per key in `keys` and `sizes`, and the
// entries of all keys one after another in `times` and `values`. Columns rather than an object per window
// keep the file small and quick to write and to restore.
import type { FeatureSpec } from './features.js';
import { Dec, type Value } from './values.js';
import { Peaks, Window } from './velocity-window.js';

/** Entries of many windows: how many each holds, then their times and values one window after another. */
interface Entries<V> {
  readonly sizes: Uint32Array;
  readonly times: Float64Array;
  readonly values: V[] | null;
}

export interface FeatureSnapshot {
  readonly keyPath: string;
  readonly keys: string[];
  /** Values are decimals as exact text (sum, avg), value keys as they are (distinct), none for count and max. */
  readonly entries: Entries<string | number | boolean>;
  /** The running max's deque of each key (max only). */
  readonly peaks: Entries<string> | null;
  /** Each key's running sum (sum and avg only), so a restore need not add its entries up again. */
  readonly sums: string[] | null;
}

export interface VelocitySnapshot {
  readonly features: Map<string, FeatureSnapshot>;
}

const text = (v: Value): string | number | boolean => (typeof v === 'object' ? v.toString() : (v as string | number | boolean));

function encode<V>(lists: readonly { times: number[]; values: readonly unknown[] | null; head: number }[], withValues: boolean, value: (v: never) => V): Entries<V> {
  const sizes = new Uint32Array(lists.length);
  let total = 0;
  for (let i = 0; i < lists.length; i++) total += sizes[i] = lists[i]!.times.length - lists[i]!.head;
  const times = new Float64Array(total);
  const values: V[] | null = withValues ? new Array<V>(total) : null;
  let at = 0;
  for (const list of lists) {
    for (let j = list.head; j < list.times.length; j++, at++) {
      times[at] = list.times[j]!;
      if (values !== null) values[at] = value(list.values![j] as never);
    }
  }
  return { sizes, times, values };
}

export function encodeFeature(keyPath: string, keys: string[], windows: readonly Window[]): FeatureSnapshot {
  const fn = windows[0]?.spec.fn;
  const summed = fn === 'sum' || fn === 'avg';
  const entries = encode(windows, summed || fn === 'distinct', text);
  const peaks = fn === 'max' ? encode(windows.map((w) => w.peaks!), true, (v: Dec) => v.toString()) : null;
  return { keyPath, keys, entries, peaks, sums: summed ? windows.map((w) => w.sum.toString()) : null };
}

/**
 * Calls `put` with each key's window. Summed values stay text until they leave the window (Decimal's minus
 * takes text), so a restore parses one sum per key rather than every entry.
 */
export function decodeFeature(spec: FeatureSpec, saved: FeatureSnapshot, put: (key: string, w: Window) => void): void {
  const { entries, peaks, sums } = saved;
  let at = 0;
  let peakAt = 0;
  for (let i = 0; i < saved.keys.length; i++) {
    const w = new Window(spec);
    const end = at + entries.sizes[i]!;
    w.times = Array.from(entries.times.subarray(at, end));
    if (entries.values !== null) w.values = entries.values.slice(at, end);
    if (sums !== null) w.sum = new Dec(sums[i]!);
    if (spec.fn === 'distinct') w.countDistinct();
    at = end;
    if (peaks !== null && peaks.sizes[i]! > 0) {
      const last = peakAt + peaks.sizes[i]!;
      const deque = new Peaks(peaks.times[peakAt]!, new Dec(peaks.values![peakAt]!));
      for (peakAt++; peakAt < last; peakAt++) {
        deque.times.push(peaks.times[peakAt]!);
        deque.values.push(new Dec(peaks.values![peakAt]!));
      }
      w.peaks = deque;
    }
    put(saved.keys[i]!, w);
  }
}
