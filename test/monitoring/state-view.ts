// The monitoring state as decisions see it, in a form that compares by value: two states that answer every
// future decision alike compare equal, whatever order their maps were filled in.
import { Decimal } from 'decimal.js';
import type { MonitoringState } from '../../src/monitoring/state.js';
import type { FeatureSnapshot, VelocitySnapshot } from '../../src/rules/index.js';

/** A running max's deque as the function it stands for: at each time, the largest value at or after it. */
function maxima(times: readonly number[], values: readonly string[]): [number, string][] {
  const byTime = new Map<number, Decimal>();
  times.forEach((t, i) => {
    const v = new Decimal(values[i]!);
    if (!byTime.has(t) || byTime.get(t)!.lt(v)) byTime.set(t, v);
  });
  const kept: [number, string][] = [];
  let later: Decimal | undefined;
  for (const [t, v] of [...byTime].sort(([a], [b]) => b - a)) {
    if (later !== undefined && v.lte(later)) continue;
    kept.unshift([t, v.toString()]);
    later = v;
  }
  return kept;
}

/** Each key's entries as (time, value) pairs in order; values of one time in any order. */
function windowsOf(f: FeatureSnapshot) {
  let at = 0;
  let peakAt = 0;
  return f.keys
    .map((key, i) => {
      const n = f.entries.sizes[i]!;
      const p = f.peaks?.sizes[i] ?? 0;
      const entries = [...f.entries.times.subarray(at, at + n)].map((t, j) => [t, f.entries.values?.[at + j] ?? null] as const);
      const peaks = f.peaks && maxima([...f.peaks.times.subarray(peakAt, peakAt + p)], f.peaks.values!.slice(peakAt, peakAt + p));
      at += n;
      peakAt += p;
      return { key, entries: entries.sort((a, b) => a[0] - b[0] || String(a[1]).localeCompare(String(b[1]))), peaks };
    })
    .sort((a, b) => (a.key < b.key ? -1 : 1));
}

/** Velocity windows by feature, whatever order their keys were filled in. */
export const velocityView = (velocity: VelocitySnapshot) => [...velocity.features].map(([fid, f]) => [fid, f.keyPath, windowsOf(f)]).sort();

/** Lists, velocity windows, history and idempotency answers for `ids`, after evicting what expired by `now`. */
export function observable(state: MonitoringState, now: number, ids: readonly string[]) {
  state.evict(now);
  return {
    businesses: [...state.businesses]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([id, b]) => {
        const { lists, velocity, history } = b.snapshot();
        return {
          id,
          lists: [...lists].map(([k, v]) => [k, [...v].sort()]).sort(),
          velocity: velocityView(velocity),
          history: [
            [...history.pairs].map(([k, p]) => [k, [...p.times].sort()]),
            [...history.last].map(([k, p]) => [k, [...p.times].sort()]),
          ],
        };
      }),
    decided: ids.map((id) => state.decided.mayHave(id)),
  };
}
