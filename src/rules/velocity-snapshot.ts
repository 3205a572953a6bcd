// Velocity windows in a state snapshot, column by column: one entry per key in `keys` and `sizes`, and the
// entries of all keys one after another in `times` and `values`. Columns rather than an object per window
// keep the file small and quick to write and to restore. Series.encode and Series.decode write and read them.

/** Entries of many windows: how many each holds, then their times and values one window after another. */
export interface Entries<V> {
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
