/**
 * TIMELINE=1: where each decision of a fixed-rate phase spent its time, from the store's trace (EventStore.trace)
 * and this thread's GC entries. Times are epoch milliseconds (performance.timeOrigin + performance.now()), so the
 * writer thread's timestamps compare with the main thread's. Segments, in order:
 *   loop      due → decide() called: the main thread was running something else (the generator's timer included)
 *   decide    decide() called → its append queued: features, rules, recording, serialising
 *   batch     append queued → its batch sent to the writer: the commit interval, the in-flight cap, the tick's end
 *   to-writer batch sent → the writer thread took it off its port: the writer was in a synchronous commit or page
 *   w-queue   taken → its transaction began: commits and deferred read-model pages queued before it
 *   commit    BEGIN → COMMIT returned (inserts, read models, fsync)
 *   reply     COMMIT → the reply reached the main thread's event loop
 *   s-wait    reply → its settling began (an earlier batch's settling, or other main-thread work, ran first)
 *   settle    the batch's settling: subscribers (the monitoring state, snapshots' counter), promises resolved
 *   resolve   settled → the decision's promise resolved in the bench (the continuations queued before it)
 */
import { PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import type { BatchTrace, PageTrace, StoreTrace } from '../src/store/trace.js';
import { percentile } from './stats.js';

const SEGMENTS = ['loop', 'decide', 'batch', 'to-writer', 'w-queue', 'commit', 'reply', 's-wait', 'settle', 'resolve'] as const;
type Segment = (typeof SEGMENTS)[number];

interface Decision {
  due: number;
  called: number;
  resolved: number;
  stream: string;
}

interface Span {
  start: number;
  end: number;
}

const epoch = (t: number) => performance.timeOrigin + t;
const overlap = (a: Span, b: Span) => Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));

export class Timeline {
  readonly #decisions: Decision[] = [];
  readonly #batches: BatchTrace[] = [];
  readonly #pages: PageTrace[] = [];
  readonly #gc: (Span & { kind: number })[] = [];
  readonly #observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const start = epoch(e.startTime);
      this.#gc.push({ start, end: start + e.duration, kind: (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind ?? 0 });
    }
  });

  /** The store's trace: give it to `store.trace()` for the phase. */
  readonly trace: StoreTrace = { batch: (b) => this.#batches.push(b), page: (p) => this.#pages.push(p) };

  constructor() {
    this.#observer.observe({ entryTypes: ['gc'] });
  }

  /** Runs one decision due at `due` (performance.now() time); `decide` answers its stream's id. */
  async track(due: number, decide: () => Promise<string>): Promise<void> {
    const called = epoch(performance.now());
    const stream = await decide();
    this.#decisions.push({ due: epoch(due), called, resolved: epoch(performance.now()), stream });
  }

  /** Prints the segments' percentiles, and what the slowest 1% waited on. Await a tick first: GC entries come late. */
  print(): void {
    this.#observer.disconnect();
    const byStream = new Map<string, { batch: BatchTrace; queuedAt: number }>();
    for (const batch of this.#batches) for (const a of batch.appends) byStream.set(a.streamId, { batch, queuedAt: a.queuedAt });
    const rows: { d: Decision; batch: BatchTrace; seg: Record<Segment, number>; total: number }[] = [];
    for (const d of this.#decisions) {
      const found = byStream.get(d.stream);
      const w = found?.batch.writer;
      if (!found || !w) continue;
      const b = found.batch;
      const seg: Record<Segment, number> = {
        loop: d.called - d.due,
        decide: found.queuedAt - d.called,
        batch: b.sentAt - found.queuedAt,
        'to-writer': w.received - b.sentAt,
        'w-queue': w.started - w.received,
        commit: w.committed - w.started,
        reply: b.repliedAt - w.committed,
        's-wait': b.settleStart - b.repliedAt,
        settle: b.settleEnd - b.settleStart,
        resolve: d.resolved - b.settleEnd,
      };
      rows.push({ d, batch: b, seg, total: d.resolved - d.due });
    }
    if (rows.length === 0) return;
    rows.sort((a, b) => a.total - b.total);
    const slow = rows.slice(Math.floor(rows.length * 0.99));
    const col = (xs: number[], p: number) => percentile(xs, p).toFixed(2).padStart(7);
    console.log(
      `  timeline: ${rows.length} decisions of ${this.#decisions.length} traced, ${this.#batches.length} batches, ${this.#pages.length} deferred pages`,
    );
    console.log(`  ${'segment (ms)'.padEnd(12)}    p50     p90     p99    mean of the slowest 1% (n=${slow.length})`);
    const all = [...SEGMENTS, 'total'] as const;
    for (const s of all) {
      const values = rows.map((r) => (s === 'total' ? r.total : r.seg[s])).sort((a, b) => a - b);
      const slowMean = slow.reduce((sum, r) => sum + (s === 'total' ? r.total : r.seg[s]), 0) / slow.length;
      console.log(`  ${s.padEnd(12)} ${col(values, 50)} ${col(values, 90)} ${col(values, 99)}    ${slowMean.toFixed(2).padStart(7)}`);
    }
    this.#printWaits(rows, slow);
  }

  #printWaits(
    rows: readonly { batch: BatchTrace; seg: Record<Segment, number> }[],
    slow: readonly { d: Decision; batch: BatchTrace; seg: Record<Segment, number>; total: number }[],
  ): void {
    const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    const size = (r: { batch: BatchTrace }) => r.batch.appends.length;
    console.log(
      `  batches: ${mean(this.#batches.map((b) => b.appends.length)).toFixed(1)} appends each, ${mean(this.#batches.map((b) => b.inFlight)).toFixed(2)} in flight when sent (${this.#batches.filter((b) => b.inFlight >= 3).length} sent with 3); commits shared by two batches: ${this.#batches.filter((b) => b.sharedCommit).length}`,
    );
    console.log(
      `  slowest 1%: batch of ${mean(slow.map(size)).toFixed(1)} appends (all: ${mean(rows.map(size)).toFixed(1)}), ${mean(slow.map((r) => r.batch.inFlight)).toFixed(2)} in flight when sent (all: ${mean(rows.map((r) => r.batch.inFlight)).toFixed(2)})`,
    );
    const dominant = new Map<string, number>();
    for (const r of slow) {
      const top = SEGMENTS.reduce((a, b) => (r.seg[b] > r.seg[a] ? b : a));
      dominant.set(top, (dominant.get(top) ?? 0) + 1);
    }
    console.log(
      `  slowest 1%, the segment that was longest: ${[...dominant]
        .sort((a, b) => b[1] - a[1])
        .map(([s, n]) => `${s} ${n}`)
        .join(', ')}`,
    );
    // In the writer between the batch's sending and its BEGIN: deferred pages; on the main thread over the
    // decision's whole life: GC pauses, batches' settling, and how many other decisions were called meanwhile.
    const pages = this.#pages.filter((p) => p.ran).map((p) => ({ start: p.ran!.started, end: p.ran!.ended }));
    const settles = this.#batches.map((b) => ({ start: b.settleStart, end: b.settleEnd }));
    const calls = this.#decisions.map((d) => d.called).sort((a, b) => a - b);
    const calledWithin = (span: Span) => lowerBound(calls, span.end) - lowerBound(calls, span.start);
    let withPage = 0;
    let pageMs = 0;
    let gcMs = 0;
    let withGc = 0;
    let settleMs = 0;
    let others = 0;
    for (const r of slow) {
      const life = { start: r.d.due, end: r.d.resolved };
      const writerWait = { start: r.batch.sentAt, end: r.batch.writer!.started };
      const inPages = pages.reduce((sum, p) => sum + overlap(p, writerWait), 0);
      if (inPages > 0) withPage++;
      pageMs += inPages;
      const inGc = this.#gc.reduce((sum, g) => sum + overlap(g, life), 0);
      if (inGc > 0) withGc++;
      gcMs += inGc;
      settleMs += settles.reduce((sum, s) => sum + overlap(s, life), 0);
      others += calledWithin(life) - 1;
    }
    const n = slow.length;
    console.log(
      `  slowest 1%: ${withPage} had a deferred page run in the writer before their commit (${(pageMs / n).toFixed(2)} ms each on average); ${withGc} overlapped a GC pause (${(gcMs / n).toFixed(2)} ms each); over each one's life the main thread called ${(others / n).toFixed(0)} other decisions and spent ${(settleMs / n).toFixed(2)} ms settling batches`,
    );
    const pageRuns = pages.map((p) => p.end - p.start).sort((a, b) => a - b);
    const gcRuns = this.#gc.map((g) => g.end - g.start).sort((a, b) => a - b);
    console.log(
      `  deferred pages in the writer: ${pages.length}, p50 ${percentile(pageRuns, 50).toFixed(2)} ms, longest ${(pageRuns.at(-1) ?? 0).toFixed(2)} ms; GC pauses: ${gcRuns.length}, ${gcRuns.reduce((a, b) => a + b, 0).toFixed(0)} ms in all, longest ${(gcRuns.at(-1) ?? 0).toFixed(2)} ms`,
    );
  }
}

/** The index of the first of `sorted` not below `x`. */
function lowerBound(sorted: readonly number[], x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
