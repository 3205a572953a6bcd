import type { Clock } from '../clock.js';
import { newId } from '../ids.js';
import type { EventStore } from '../store/index.js';
import { outcomesStream, WORKER_METADATA, type AttemptFinishedData, type WebhookEvent } from './events.js';

/** Outcomes in one event at most; more go in the next. */
const PER_EVENT = 500;

interface Waiting {
  outcome: AttemptFinishedData;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Records attempts' outcomes, those that answer while an append is under way together in the next one: one event
 * (WebhookAttemptsFinished, on a stream of its own) for many outcomes, one append at a time. `record` resolves
 * once its outcome is durable.
 */
export class OutcomeLog {
  #waiting: Waiting[] = [];
  #appending = false;

  constructor(
    private readonly store: EventStore,
    private readonly clock: Clock,
  ) {}

  record(outcome: AttemptFinishedData): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ outcome, resolve, reject });
      if (!this.#appending) void this.#append();
    });
  }

  async #append(): Promise<void> {
    this.#appending = true;
    while (this.#waiting.length > 0) {
      const batch = this.#waiting.splice(0, PER_EVENT);
      const event: WebhookEvent = { type: 'WebhookAttemptsFinished', data: { outcomes: batch.map((w) => w.outcome) } };
      try {
        await this.store.append(outcomesStream(newId(this.clock.now())), [event], {
          expectedVersion: 'no_stream',
          metadata: WORKER_METADATA,
        });
        for (const w of batch) w.resolve();
      } catch (error) {
        for (const w of batch) w.reject(error);
      }
    }
    this.#appending = false;
  }
}
