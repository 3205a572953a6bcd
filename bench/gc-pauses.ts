/**
 * This thread's GC pauses by kind, from the perf_hooks 'gc' entries: what a fixed rate's p99 waits behind.
 * Scavenges stop the thread for the young generation; a mark-compact also marks the whole old generation on V8's
 * helper threads beforehand, which on two cores take CPU from the writer and the load generator, so its printed
 * pause understates what it costs the requests around it.
 */
import { PerformanceObserver, constants, type PerformanceEntry } from 'node:perf_hooks';

const KINDS = [
  { kind: constants.NODE_PERFORMANCE_GC_MINOR, name: 'scavenges' },
  { kind: constants.NODE_PERFORMANCE_GC_MAJOR, name: 'mark-compacts' },
] as const;

export interface GcTotals {
  /** Per kind name: how many, and their pauses' total and longest, in ms. */
  [kind: string]: { count: number; totalMs: number; longestMs: number };
}

export class GcPauses {
  #totals: GcTotals = {};
  readonly #observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = KINDS.find((k) => k.kind === (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind);
      if (!kind) continue;
      const t = (this.#totals[kind.name] ??= { count: 0, totalMs: 0, longestMs: 0 });
      t.count++;
      t.totalMs += e.duration;
      t.longestMs = Math.max(t.longestMs, e.duration);
    }
  });

  constructor() {
    this.#observer.observe({ entryTypes: ['gc'] });
  }

  /** The pauses since the last call (entries arrive a tick late: await one first). */
  take(): GcTotals {
    const taken = this.#totals;
    this.#totals = {};
    return taken;
  }

  stop(): void {
    this.#observer.disconnect();
  }
}

/** "5 scavenges, 40 ms in all, longest 9.1 ms; 1 mark-compact, 19 ms" */
export function describeGc(totals: GcTotals): string {
  const parts = KINDS.flatMap(({ name }) => {
    const t = totals[name];
    if (!t) return name === 'scavenges' ? ['no scavenge'] : [];
    return [
      `${t.count} ${t.count === 1 ? name.slice(0, -1) : name}, ${t.totalMs.toFixed(0)} ms in all, longest ${t.longestMs.toFixed(1)} ms`,
    ];
  });
  return parts.join('; ');
}
