/**
 * A fixed-rate HTTP load generator without coordinated omission. Request i is due at start + i/rate whether or not
 * earlier ones have answered, and its latency counts from that due time. autocannon's `overallRate` is closed-loop
 * instead: a connection sends its next request only after the previous answer, so a stalled server is offered
 * less and the stall never shows in the percentiles (it printed 705/s served at "2,000/s offered"). Requests go
 * over a pool of keep-alive connections without pipelining, as a payment switch sends them; a request due while
 * every connection is busy waits for one, and that wait is part of its latency.
 */
import http from 'node:http';
import { percentile } from './stats.js';

export interface OpenLoopOptions {
  port: number;
  path: string;
  headers: Record<string, string>;
  body: () => string;
  rate: number;
  seconds: number;
  connections: number;
}

export interface OpenLoopResult {
  /** Answers per second over the run (below the offered rate when the server falls behind). */
  served: number;
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
  errors: number;
  non2xx: number;
  /** Requests with no answer 10 s after the last was due; they count in the percentiles with the time waited. */
  unanswered: number;
}

const GRACE_MS = 10_000;

export async function openLoop(o: OpenLoopOptions): Promise<OpenLoopResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: o.connections });
  const total = Math.round(o.rate * o.seconds);
  const latencies: number[] = [];
  const pending = new Set<number>();
  let errors = 0;
  let non2xx = 0;
  const start = performance.now();
  const dueAt = (i: number) => start + (i * 1000) / o.rate;

  const send = (i: number, settle: () => void) => {
    const body = o.body();
    const due = dueAt(i);
    pending.add(i);
    const done = (failed: boolean, status = 0) => {
      if (!pending.delete(i)) return;
      if (failed) errors++;
      else if (status < 200 || status >= 300) non2xx++;
      latencies.push(performance.now() - due);
      settle();
    };
    const req = http.request(
      { host: '127.0.0.1', port: o.port, path: o.path, method: 'POST', agent, headers: { ...o.headers, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        res.on('end', () => done(false, res.statusCode)).on('error', () => done(true));
        res.resume();
      },
    );
    req.on('error', () => done(true));
    req.end(body);
  };

  let lastAnswer = start;
  await new Promise<void>((resolve) => {
    let next = 0;
    const settle = () => {
      lastAnswer = performance.now();
      if (next === total && pending.size === 0) resolve();
    };
    // A 1 ms timer rather than a busy loop: the generator shares the two cores with the server. A request sent
    // late by the timer is still timed from its due time, so the lag counts against the server, never for it.
    const tick = () => {
      const now = performance.now();
      while (next < total && dueAt(next) <= now) send(next++, settle);
      if (next < total) setTimeout(tick, 1);
      else setTimeout(resolve, GRACE_MS).unref();
    };
    tick();
  });
  const unanswered = pending.size;
  const end = performance.now();
  for (const i of pending) latencies.push(end - dueAt(i));
  agent.destroy();

  const sorted = latencies.sort((a, b) => a - b);
  return {
    served: (total - unanswered - errors) / ((lastAnswer - start) / 1000),
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    p999: percentile(sorted, 99.9),
    max: sorted[sorted.length - 1] ?? NaN,
    errors,
    non2xx,
    unanswered,
  };
}
