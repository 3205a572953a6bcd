import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import { ConflictError } from '../errors.js';
import type { Logger } from '../logger.js';
import { handleCommand, type EventStore } from '../store/index.js';
import { parseRetryAfter, retryDelayMs } from './backoff.js';
import { deliveryDecider } from './decider.js';
import { deliveryStream, type AttemptOutcome } from './events.js';
import type { WebhookDeliveriesTable, WebhookTables } from './projection.js';
import { signatureHeaders } from './signing.js';
import { postWebhook } from './transport.js';
import { UrlPolicyError } from './address-policy.js';

export interface WorkerOptions {
  allowInsecure: boolean;
  timeoutMs: number;
  /** Deliveries attempted side by side. */
  concurrency: number;
}

const WORKER = 'webhook-worker';
/** A taken delivery is the worker's for its timeout plus this margin; past it, the attempt counts as lost. */
const LEASE_MARGIN_MS = 50_000;
const BATCH = 100;

/**
 * Attempts due deliveries. Each attempt is claimed by an event appended at the stream version the worker read,
 * so two workers (or two processes) never send the same delivery at once; the outcome is another event.
 * Time comes from the engine clock, so tests drive retries with `runDue()` and a ManualClock.
 */
export class DeliveryWorker {
  readonly #inFlight = new Map<string, Promise<void>>();

  constructor(
    private readonly db: Kysely<WebhookTables>,
    private readonly store: EventStore,
    private readonly clock: Clock,
    /** The secrets a delivery is signed with; null when its endpoint was deleted. */
    private readonly secretsOf: (delivery: WebhookDeliveriesTable) => Promise<string[] | null>,
    private readonly logger: Logger,
    private readonly options: WorkerOptions,
  ) {}

  /** Attempts every delivery due now; resolves with the number of attempts made. */
  async runDue(): Promise<number> {
    let made = 0;
    for (;;) {
      const now = this.clock.now().toISOString();
      const due = (
        await this.db
          .selectFrom('webhook_deliveries')
          .selectAll()
          .where((eb) =>
            eb.or([
              eb.and([eb('status', '=', 'pending'), eb('next_attempt_at', '<=', now)]),
              eb.and([eb('status', '=', 'delivering'), eb('lease_until', '<=', now)]),
            ]),
          )
          .orderBy('next_attempt_at')
          .limit(BATCH)
          .execute()
      ).filter((d) => !this.#inFlight.has(d.delivery_id));
      if (due.length === 0) return made;
      const results = await this.#pool(due, (d) => this.#attemptOnce(d));
      const attempted = results.filter(Boolean).length;
      made += attempted;
      if (due.length < BATCH || attempted === 0) return made;
    }
  }

  /** Waits for attempts under way (engine shutdown). */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.#inFlight.values()]);
  }

  async #pool<T>(items: readonly T[], work: (item: T) => Promise<boolean>): Promise<boolean[]> {
    const results: boolean[] = [];
    let next = 0;
    const lane = async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await work(items[i]!);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.options.concurrency, items.length) }, lane));
    return results;
  }

  #attemptOnce(delivery: WebhookDeliveriesTable): Promise<boolean> {
    let done!: () => void;
    this.#inFlight.set(delivery.delivery_id, new Promise<void>((r) => (done = r)));
    return this.#attempt(delivery).finally(() => {
      this.#inFlight.delete(delivery.delivery_id);
      done();
    });
  }

  async #attempt(delivery: WebhookDeliveriesTable): Promise<boolean> {
    const metadata = { businessId: delivery.business_id, actor: WORKER };
    const stream = deliveryStream(delivery.delivery_id);
    const started = this.clock.now();
    let attempt: number;
    try {
      const claimed = await handleCommand(
        this.store,
        stream,
        deliveryDecider,
        {
          type: 'StartAttempt',
          data: {
            deliveryId: delivery.delivery_id,
            now: started.toISOString(),
            leaseUntil: new Date(started.getTime() + this.options.timeoutMs + LEASE_MARGIN_MS).toISOString(),
          },
        },
        metadata,
      );
      attempt = claimed.state.attempts;
    } catch (error) {
      if (error instanceof ConflictError) return false;
      throw error;
    }

    const { outcome, statusCode, error, retryAfterMs, durationMs } = await this.#send(delivery);
    const finished = this.clock.now();
    let result: AttemptOutcome = outcome;
    let nextAttemptAt: string | null = null;
    if (outcome === 'retry') {
      const delay = retryDelayMs(attempt, Math.random(), retryAfterMs);
      if (delay === null) result = 'gave_up';
      else nextAttemptAt = new Date(finished.getTime() + delay).toISOString();
    }
    try {
      await handleCommand(
        this.store,
        stream,
        deliveryDecider,
        {
          type: 'FinishAttempt',
          data: {
            deliveryId: delivery.delivery_id,
            attempt,
            finishedAt: finished.toISOString(),
            outcome: result,
            statusCode,
            error,
            durationMs,
            nextAttemptAt,
          },
        },
        metadata,
      );
    } catch (err) {
      // The lease ran out and another worker took the delivery: its attempt is the one that counts.
      if (!(err instanceof ConflictError)) throw err;
      this.logger.warn({ deliveryId: delivery.delivery_id, attempt }, 'webhook attempt finished after its lease');
    }
    return true;
  }

  async #send(delivery: WebhookDeliveriesTable): Promise<{
    outcome: AttemptOutcome;
    statusCode: number | null;
    error: string | null;
    retryAfterMs: number | null;
    durationMs: number;
  }> {
    const secrets = await this.secretsOf(delivery);
    if (secrets === null) {
      return { outcome: 'gave_up', statusCode: null, error: 'the webhook endpoint was deleted', retryAfterMs: null, durationMs: 0 };
    }
    if (secrets.length === 0) {
      return {
        outcome: 'gave_up',
        statusCode: null,
        error: 'the business has no active API key, so no webhook secret to sign with',
        retryAfterMs: null,
        durationMs: 0,
      };
    }
    const headers = signatureHeaders(delivery.webhook_id, this.clock.now(), delivery.body, secrets);
    const t0 = performance.now();
    try {
      const res = await postWebhook(new URL(delivery.url), headers, delivery.body, this.options);
      const durationMs = Math.round(performance.now() - t0);
      if (res.status >= 200 && res.status < 300)
        return { outcome: 'delivered', statusCode: res.status, error: null, retryAfterMs: null, durationMs };
      if (res.status === 410)
        return { outcome: 'gave_up', statusCode: 410, error: 'the receiver answered 410 Gone', retryAfterMs: null, durationMs };
      return {
        outcome: 'retry',
        statusCode: res.status,
        error: `the receiver answered ${res.status}`,
        retryAfterMs: parseRetryAfter(res.retryAfter, this.clock.now()),
        durationMs,
      };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const durationMs = Math.round(performance.now() - t0);
      // A refusal by the URL policy will not change with time; retrying it for days only fills the log.
      if (err instanceof UrlPolicyError) return { outcome: 'gave_up', statusCode: null, error: message, retryAfterMs: null, durationMs };
      return { outcome: 'retry', statusCode: null, error: message, retryAfterMs: null, durationMs: Math.round(performance.now() - t0) };
    }
  }
}
