// Velocity windows in a state snapshot, column by column: one entry per key in `keys` and `sizes`, and the
// entries of all keys one after another in `times` and `values`. Columns rather than an object per window
// keep the file small and quick to write and to restore.
import { Dec } from '../values.js';
import { placesOfText } from './amounts.js';
import type { Key } from './distinct.js';
import type { Amount, Series } from './series.js';

/** Entries of many windows: how many each holds, then their times and values one window after another. */
interface Entries<V> {
  readonly sizes: Uint32Array;
  readonly times: Float64Array;
  readonly values: V[] | null;
}

export interface FeatureSnapshot {
  readonly keyPath: string;
  readonly keys: string[];
  /** Values are amounts as exact decimal text (sum, avg), value keys as they are (distinct), none for count and max. */
  readonly entries: Entries<string | number | boolean>;
  /** The running max's deque of each key, amounts as exact decimal text (max only). */
  readonly peaks: Entries<string> | null;
}

export interface VelocitySnapshot {
  readonly features: Map<string, FeatureSnapshot>;
}

/** The windows of `records` (their keys alongside) as snapshot columns; empty windows are left out. */
export function encodeFeature(series: Series, keyPath: string, keys: readonly string[], records: readonly number[]): FeatureSnapshot {
  const kept: string[] = [];
  const at: number[] = [];
  records.forEach((r, i) => {
    if (series.sizeOf(r) > 0) {
      kept.push(keys[i]!);
      at.push(r);
    }
  });
  const entries = columns<Key>(at, series.valued !== null, (r, visit) => series.forEachEntry(r, visit));
  const peaks = series.hasPeaks ? columns<string>(at, true, (r, visit) => series.forEachPeak(r, visit)) : null;
  return { keyPath, keys: kept, entries, peaks };
}

/** Adds a snapshot's windows to `series`, each to the record `recordOf` gives for its key. */
export function decodeFeature(series: Series, saved: FeatureSnapshot, recordOf: (key: string) => number): void {
  const { entries, peaks } = saved;
  const amounts = series.valued === 'amounts';
  let at = 0;
  let peakAt = 0;
  for (let i = 0; i < saved.keys.length; i++) {
    const r = recordOf(saved.keys[i]!);
    for (const end = at + entries.sizes[i]!; at < end; at++) {
      const v = entries.values?.[at];
      series.restoreEntry(r, entries.times[at]!, v, amounts ? amountOfText(v as string) : undefined);
    }
    if (peaks === null) continue;
    for (const end = peakAt + peaks.sizes[i]!; peakAt < end; peakAt++)
      series.restorePeak(r, peaks.times[peakAt]!, amountOfText(peaks.values![peakAt]!));
  }
}

/**
 * A snapshot in parts of one feature each, every part holding whole windows of at most `entries` entries
 * together (a part holds one window larger than that alone), so that each can be taken in at a bounded cost.
 */
export function* sliceSnapshot(snapshot: VelocitySnapshot, entries: number): Generator<VelocitySnapshot> {
  for (const [id, saved] of snapshot.features) {
    const { sizes } = saved.entries;
    const n = saved.keys.length;
    // The part's first key, where its entries and peaks start in the columns, and how many entries it holds.
    let first = 0;
    let at = 0;
    let peakAt = 0;
    let held = 0;
    for (let i = 0; i <= n; i++) {
      if (i > first && (i === n || held + sizes[i]! > entries)) {
        const peaks = saved.peaks && sliceEntries(saved.peaks, first, i, peakAt);
        const part = {
          keyPath: saved.keyPath,
          keys: saved.keys.slice(first, i),
          entries: sliceEntries(saved.entries, first, i, at),
          peaks,
        };
        yield { features: new Map([[id, part]]) };
        at += held;
        peakAt += peaks?.times.length ?? 0;
        first = i;
        held = 0;
      }
      if (i < n) held += sizes[i]!;
    }
  }
}

/** The entries of windows `from` to `to` (exclusive), the first of which starts at `start` in the columns. */
function sliceEntries<V>(all: Entries<V>, from: number, to: number, start: number): Entries<V> {
  const sizes = all.sizes.slice(from, to);
  const end = start + sizes.reduce((sum, n) => sum + n, 0);
  return { sizes, times: all.times.slice(start, end), values: all.values === null ? null : all.values.slice(start, end) };
}

/** The entries `each` visits for every record, as columns. */
function columns<V>(
  records: readonly number[],
  valued: boolean,
  each: (r: number, visit: (time: number, value: V | undefined) => void) => void,
): Entries<V> {
  const sizes = new Uint32Array(records.length);
  const times: number[] = [];
  const values: V[] | null = valued ? [] : null;
  for (const [i, r] of records.entries())
    each(r, (time, value) => {
      sizes[i]!++;
      times.push(time);
      values?.push(value as V);
    });
  return { sizes, times: Float64Array.from(times), values };
}

/** A snapshot's amount text as an Amount: parsed as a double, with a Decimal only for exponent notation. */
function amountOfText(text: string): Amount {
  const places = placesOfText(text);
  return { value: text, num: Number(text), places: places >= 0 ? places : new Dec(text).decimalPlaces() };
}
