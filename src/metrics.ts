import { Counter, Histogram, Registry } from 'prom-client';
import type { AppendObserver } from './store/index.js';

/** One registry per engine, so that several engines in one process (tests, embedding) keep separate counts. */
export class Metrics implements AppendObserver {
  readonly registry = new Registry();
  readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by route',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  readonly eventsAppended = new Counter({
    name: 'events_appended_total',
    help: 'Events appended to the log',
    registers: [this.registry],
  });
  readonly appendDuration = new Histogram({
    name: 'event_append_duration_seconds',
    help: 'Time from append request to durable commit (includes waiting for the group commit)',
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25],
    registers: [this.registry],
  });

  committed(eventCount: number, appendSeconds: readonly number[]): void {
    this.eventsAppended.inc(eventCount);
    for (const s of appendSeconds) this.appendDuration.observe(s);
  }
}
