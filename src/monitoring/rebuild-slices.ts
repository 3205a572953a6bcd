// A swap's work on the deciding thread, cut into slices that each hold it for about a millisecond, and timed: how
// long each stage held the thread at a stretch goes to the reload's log line and the benches.
import type { EventStore, StoredEvent } from '../store/index.js';
import type { RulesetRebuild } from './ruleset-rebuild.js';

/** How long a slice of a swap's replay holds the deciding thread before it lets decisions run. */
export const SLICE_MS = 1;
/**
 * Events read per query while a swap replays the log: SQLite reads and decodes a page with the event loop held,
 * so a page must fit in a slice (about 60 µs an event on this machine, see docs/benchmarks.md).
 */
const REPLAY_PAGE = 16;

/** How long one stage of a swap held the deciding thread at a stretch: how many stretches, the longest, all together. */
export interface Held {
  readonly count: number;
  readonly maxMs: number;
  readonly totalMs: number;
}

export class HoldTimer implements Held {
  count = 0;
  maxMs = 0;
  totalMs = 0;

  add(ms: number): void {
    this.count++;
    this.maxMs = Math.max(this.maxMs, ms);
    this.totalMs += ms;
  }

  toJSON(): Held {
    return { count: this.count, maxMs: round(this.maxMs), totalMs: round(this.totalMs) };
  }
}

/**
 * How many events the paused end of a swap may replay: as many as replay within a slice at the pace its catch-up
 * passes went (at most PAUSED_MAX, for a pace measured on a few events).
 */
export class Pace {
  /** Until a pass is measured: about what a decision's event costs to read, decode and record here. */
  #msPerEvent = 0.1;

  went(events: number, ms: number): void {
    if (events > 0) this.#msPerEvent = ms / events;
  }

  get pausedEvents(): number {
    return Math.min(PAUSED_MAX, Math.max(1, Math.floor(SLICE_MS / this.#msPerEvent)));
  }
}
const PAUSED_MAX = 1000;

/** What a swap held the deciding thread for, stage by stage. */
export interface SwapHolds {
  /** Taking in the rebuild thread's parts, one a turn of the event loop. */
  readonly parts: Held;
  /** Replaying the log here (the catch-up passes, or the whole rebuild without a thread), one slice a turn. */
  readonly slices: Held;
  /** The end, with decisions waiting at the gate: for those in flight to commit, then the last events' replay. */
  readonly paused: { readonly waitMs: number; readonly replayMs: number; readonly events: number };
}

const round = (ms: number) => Math.round(ms * 100) / 100;
export const pausedHold = (waitMs: number, replayMs: number, events: number) => ({
  waitMs: round(waitMs),
  replayMs: round(replayMs),
  events,
});

/**
 * Records the decisions after `after` and up to `upTo` into `rebuild`, but those `skip` says are another node's;
 * lets decisions run once a slice has held the thread for SLICE_MS (`sliced`), else runs through. Returns how
 * many events it read.
 */
export async function replayInto(
  rebuild: RulesetRebuild,
  store: EventStore,
  range: { readonly after: number; readonly upTo: number },
  skip: ((e: StoredEvent) => boolean) | undefined,
  timer: HoldTimer,
  sliced: boolean,
): Promise<number> {
  let read = 0;
  let since = performance.now();
  for await (const e of store.iterateAll({ after: range.after, types: ['TransactionDecided'], pageSize: REPLAY_PAGE })) {
    if (e.position > range.upTo) break;
    const held = performance.now() - since;
    // SQLite answers synchronously: without a turn of the event loop now and then no decision would run.
    if (sliced && held >= SLICE_MS) {
      timer.add(held);
      await new Promise((resolve) => setImmediate(resolve));
      since = performance.now();
    }
    read++;
    if (skip?.(e)) continue;
    rebuild.record(e);
  }
  timer.add(performance.now() - since);
  return read;
}
