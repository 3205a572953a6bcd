import { performance } from 'node:perf_hooks';

/** How long the event loop is watched at a time, with the worker paused, to tell whether decisions are using it. */
const WINDOW_MS = 20;
/** The share of a window the event loop spent working past which the process counts as saturated. */
const BUSY = 0.85;

/**
 * Background work gives way to requests: it waits while this process's event loop is saturated by other work, for
 * at most `maxWaitMs`, so that a backlog still moves at saturation (one page per `maxWaitMs` at least).
 */
export async function giveWay(maxWaitMs: number): Promise<void> {
  const until = performance.now() + maxWaitMs;
  while (performance.now() < until) {
    const before = performance.eventLoopUtilization();
    await new Promise((resolve) => setTimeout(resolve, WINDOW_MS));
    if (performance.eventLoopUtilization(before).utilization < BUSY) return;
  }
}
