/** Shared by the bench scripts: percentiles over latency samples, and one printed line per measurement. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export interface Summary {
  name: string;
  count: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  unit: 'ms' | 'us';
}

export function summarise(name: string, latencies: number[], seconds: number, unit: 'ms' | 'us' = 'ms'): Summary {
  const sorted = [...latencies].sort((a, b) => a - b);
  const scale = unit === 'us' ? 1000 : 1;
  return {
    name,
    count: latencies.length,
    seconds,
    perSecond: latencies.length / seconds,
    p50: percentile(sorted, 50) * scale,
    p99: percentile(sorted, 99) * scale,
    unit,
  };
}

export function printSummary(s: Summary): void {
  console.log(
    `${s.name.padEnd(44)} ${s.perSecond.toFixed(0).padStart(9)}/s   p50 ${s.p50.toFixed(3).padStart(8)} ${s.unit}   p99 ${s.p99.toFixed(3).padStart(8)} ${s.unit}   (n=${s.count})`,
  );
}

export const median = (xs: readonly number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );

/** Sum and count of a prom-client histogram over all its label sets: differences of two readings give a mean. */
export async function histogramTotals(histogram: {
  get(): Promise<{ values: { metricName?: string; value: number }[] }>;
}): Promise<{ sum: number; count: number }> {
  let sum = 0;
  let count = 0;
  for (const v of (await histogram.get()).values) {
    if (v.metricName?.endsWith('_sum')) sum += v.value;
    else if (v.metricName?.endsWith('_count')) count += v.value;
  }
  return { sum, count };
}

/** Mean in milliseconds of what a histogram (in seconds) observed between two readings of histogramTotals. */
export const meanMsBetween = (before: { sum: number; count: number }, after: { sum: number; count: number }): number =>
  ((after.sum - before.sum) / Math.max(1, after.count - before.count)) * 1000;

/** Decisions committed so far, in all and not approved (each of which opened a case). */
export interface DecisionTotals {
  all: number;
  flagged: number;
}

/** Reads the engine's `monitoring_decisions_total{result}`. */
export async function decisionTotals(counter: {
  get(): Promise<{ values: { labels: { result?: string | number }; value: number }[] }>;
}): Promise<DecisionTotals> {
  let all = 0;
  let flagged = 0;
  for (const { labels, value } of (await counter.get()).values) {
    all += value;
    if (labels.result !== 'approved') flagged += value;
  }
  return { all, flagged };
}

/** The share of the decisions between two readings of decisionTotals that were not approved. */
export const flaggedShare = (before: DecisionTotals, after: DecisionTotals): string =>
  `${((100 * (after.flagged - before.flagged)) / Math.max(1, after.all - before.all)).toFixed(1)}% of the decisions not approved (each raises an alert on a case)`;

/**
 * Memory the process holds in JS: the V8 heap plus the array buffers outside it (velocity windows live in typed
 * arrays, which the heap figure alone leaves out). Measure after a full collection.
 */
export function retainedBytes(): { heap: number; buffers: number; total: number } {
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return { heap: heapUsed, buffers: arrayBuffers, total: heapUsed + arrayBuffers };
}
