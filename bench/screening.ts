/**
 * Name-screening benchmark: the synchronous matcher over all embedded lists, with exact, typo and
 * non-listed queries; against a naive full scan (token Jaro-Winkler of the query against every name,
 * names normalised beforehand) measured in the same run. Run: npx tsx bench/screening.ts
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { loadEmbeddedLists } from '../src/name-matching/embedded.js';
import { createMatcher, type Matcher } from '../src/name-matching/matcher.js';
import { compareTokens } from '../src/name-matching/compare.js';
import { jaroWinkler } from '../src/name-matching/jaro-winkler.js';
import { normaliseName } from '../src/name-matching/normalise.js';
import { readCsv } from '../src/name-matching/sources/csv-reader.js';
import { buildVariants } from '../test/name-matching/variants.js';
import { describeGc, GcPauses } from './gc-pauses.js';
import { describeThreadCpu, threadCpu } from './thread-cpu.js';
import { nameOf, PARTY_NAMES } from './fixtures/transactions.js';

const QUERIES_PER_KIND = 2000;
const BASELINE_QUERIES = 60;

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function measure(label: string, queries: readonly string[], run: (q: string) => unknown): { p50: number; p99: number; qps: number } {
  // The warm-up queries are not measured: bestScore keeps the answers it gave, and every measured query is one
  // the process has not seen before.
  const warmUp = Math.min(200, Math.floor(queries.length / 10));
  for (const q of queries.slice(0, warmUp)) run(q);
  const measured = queries.slice(warmUp);
  const times: number[] = [];
  const cpu = threadCpu();
  const start = performance.now();
  for (const q of measured) {
    const t = performance.now();
    run(q);
    times.push(performance.now() - t);
  }
  const total = performance.now() - start;
  const cpuPerQuery = describeThreadCpu(cpu, threadCpu(), measured.length);
  times.sort((a, b) => a - b);
  const r = { p50: percentile(times, 50), p99: percentile(times, 99), qps: (measured.length / total) * 1000 };
  console.log(
    `${label.padEnd(28)} n=${String(measured.length).padStart(5)}  p50 ${r.p50.toFixed(3)} ms  p99 ${r.p99.toFixed(3)} ms  ${Math.round(r.qps)} q/s  ${cpuPerQuery}`,
  );
  return r;
}

let t = performance.now();
const lists = await loadEmbeddedLists();
const loadMs = performance.now() - t;
t = performance.now();
const matcher: Matcher = createMatcher(lists);
const indexMs = performance.now() - t;
const names = lists.reduce((n, l) => n + l.entries.reduce((m, e) => m + 1 + e.aliases.length, 0), 0);
console.log(`lists: ${lists.map((l) => `${l.name} ${l.entries.length}`).join(', ')}; ${names} names`);
console.log(`start-up: parse ${loadMs.toFixed(0)} ms + index ${indexMs.toFixed(0)} ms (no cache folder; see bench:screening-startup)`);
console.log(
  `load average: ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);

// Every measured run gets queries no earlier run has seen, so no result is served from a warm cache
// of whole queries (query tokens do recur, as they do in production).
const sanctionLists = lists.filter((l) => l.type === 'sanction');
const queriesOf = (seed: number, kind: string): string[] =>
  buildVariants(sanctionLists, 1000, seed)
    .filter((v) => v.kind === kind)
    .map((v) => v.query)
    .slice(0, QUERIES_PER_KIND);
const people = readCsv(readFileSync(new URL('../test/fixtures/screening/yente_negatives_us.csv', import.meta.url), 'utf8'))
  .slice(1)
  .map((r) => r[0]!);
const exact = queriesOf(42, 'natural-order');
const typo = queriesOf(43, 'typo');
const negatives = people.slice(0, QUERIES_PER_KIND);
const mixed = [...queriesOf(44, 'natural-order'), ...queriesOf(45, 'typo'), ...people.slice(QUERIES_PER_KIND, 3 * QUERIES_PER_KIND)].slice(
  0,
  3 * QUERIES_PER_KIND,
);
const instant = [...queriesOf(46, 'swapped'), ...people.slice(3 * QUERIES_PER_KIND, 5 * QUERIES_PER_KIND)];

const screen = (q: string): unknown => matcher.screen({ name: q, threshold: 85, limit: 10 });
const results = [
  measure('matcher exact', exact, screen),
  measure('matcher typo', typo, screen),
  measure('matcher non-listed', negatives, screen),
];
const all = measure('matcher mixed', mixed, screen);
measure('bestScore (instant path)', instant, (q) => matcher.bestScore(q, 'sanction'));
// The counterparties of the instant benches: common Nigerian names, whose tokens ("musa", "bello", "mohammed")
// each have dozens of similar tokens on the sanctions lists. Every one is new to the matcher's memo.
const parties = Array.from({ length: 10_000 }, (_, i) => nameOf((i * 7919) % PARTY_NAMES));
measure('bestScore, bench parties', parties, (q) => matcher.bestScore(q, 'sanction'));

/**
 * The budget (issue 32): p99 ≤ 5 ms per query at 2,000 queries a second. Open loop: query i is due at
 * start + i / rate whether or not the ones before have finished, and its latency runs from that due time, so time
 * spent behind a slow query counts (a closed loop would offer less while it waits, and hide it). The phase's GC
 * pauses are printed beside it: what its p99 waits behind. These phases run before the full-scan baseline, whose
 * garbage (the engine's process never makes it) would otherwise be collected during them.
 */
const pauses = new GcPauses();
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));
async function atRate(label: string, queries: readonly string[], rate: number, run: (q: string) => unknown): Promise<void> {
  await tick();
  pauses.take();
  const interval = 1000 / rate;
  const latencies: number[] = [];
  const start = performance.now();
  for (let i = 0; i < queries.length; i++) {
    const due = start + i * interval;
    while (performance.now() < due); // the generator shares the thread: it waits by spinning, as a poller would
    run(queries[i]!);
    latencies.push(performance.now() - due);
  }
  const seconds = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  const p99 = percentile(latencies, 99);
  console.log(
    `${label.padEnd(28)} offered ${rate}/s, served ${Math.round(queries.length / seconds)}/s  p50 ${percentile(latencies, 50).toFixed(3)} ms  p99 ${p99.toFixed(3)} ms  max ${latencies[latencies.length - 1]!.toFixed(1)} ms  budget (p99 ≤ 5 ms, ≥ 2,000/s) ${p99 <= 5 && queries.length / seconds >= 0.98 * rate ? 'met' : 'NOT met'}`,
  );
  await tick();
  console.log(`${''.padEnd(28)} GC during the phase: ${describeGc(pauses.take())}`);
}
const RATE = 2000;
const fresh = [...queriesOf(47, 'natural-order'), ...queriesOf(48, 'typo'), ...people.slice(5 * QUERIES_PER_KIND, 7 * QUERIES_PER_KIND)];
const shuffled = fresh
  .map((q, i) => ({ q, k: (i * 7919) % fresh.length }))
  .sort((a, b) => a.k - b.k)
  .map((x) => x.q);
await atRate('screen() at 2,000/s', shuffled, RATE, screen);
const counterparties = Array.from({ length: 10_000 }, (_, i) => nameOf((i * 104_729 + 17) % PARTY_NAMES));
await atRate('bestScore() at 2,000/s', counterparties, RATE, (q) => matcher.bestScore(q, 'sanction'));
pauses.stop();

// Baseline: a naive full scan, best-pair token Jaro-Winkler of the query against every name.
const normalised = lists
  .flatMap((l) => l.entries.flatMap((e) => [e.name, ...e.aliases].map((n) => normaliseName(n))))
  .filter((n) => n.length);
const sample = mixed.filter((_, i) => i % Math.floor(mixed.length / BASELINE_QUERIES) === 0).slice(0, BASELINE_QUERIES);
const baseline = measure('baseline full scan', sample, (q) => {
  const tokens = normaliseName(q);
  let best = 0;
  for (const n of normalised) best = Math.max(best, compareTokens(tokens, n, jaroWinkler));
  return best;
});
console.log(`speed-up (mixed p50): ${(baseline.p50 / all.p50).toFixed(0)}x; throughput: ${(all.qps / baseline.qps).toFixed(0)}x`);

console.log(
  `load average: ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
console.log(`worst p99 across kinds: ${Math.max(...results.map((r) => r.p99)).toFixed(3)} ms`);
