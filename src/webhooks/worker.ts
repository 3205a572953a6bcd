import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import { ConflictError } from '../errors.js';
import type { Logger } from '../logger.js';
import { handleCommand, type EventStore } from '../store/index.js';
import { parseRetryAfter, retryDelayMs } from './backoff.js';
import { deliveryDecider, type DeliveryCommand, type DeliveryState } from './decider.js';
import { deliveryStream, type AttemptFinishedData, type AttemptOutcome } from './events.js';
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
/** A taken delivery is the worker's until its POST could have timed out, plus this margin; past it, the attempt counts as lost. */
const LEASE_MARGIN_MS = 50_000;
/** Deliveries claimed together: their claims share one commit, and the next page is read while none is left. */
const PAGE = 500;

type SendResult = Awaited<ReturnType<DeliveryWorker['send']>>;

/** The delivery's state as its stream stands at the version the read model last projected. */
const stateOf = (d: WebhookDeliveriesTable): DeliveryState => ({
  exists: true,
  status: d.status,
  attempts: d.attempts,
  nextAttemptAt: d.next_attempt_at,
  leaseUntil: d.lease_until,
});

/**
 * Attempts due deliveries. Each attempt is claimed by an event appended at the stream version the worker read,
 * so two workers (or two processes) never send the same delivery at once; the outcome is another event.
 * The version comes from the read model, which is projected in the same transaction as the stream: the claims of
 * a page are appended in one tick and share a commit, with no stream read per delivery. A claim made on a row that
 * another worker has moved on conflicts and is skipped. The outcomes are appended as the POSTs answer, without
 * holding the next POST back, and share commits likewise.
 * Time comes from the engine clock, so tests drive retries with `runDue()` and a ManualClock.
 */
export class DeliveryWorker {
  readonly #inFlight = new Map<string, Promise<void>>();

  constructor(
    private readonly db: Kysely<WebhookTables>,
    private readonly store: EventStore,
    private readonly clock: Clock,
    /** The secrets each delivery of a page is signed with, by delivery id; null when its endpoint was deleted. */
    private readonly secretsOf: (deliveries: readonly WebhookDeliveriesTable[]) => Promise<Map<string, string[] | null>>,
    private readonly logger: Logger,
    private readonly options: WorkerOptions,
  ) {}

  /** Attempts every delivery due now; resolves with the number of attempts made, once every outcome is recorded. */
  async runDue(): Promise<number> {
    let made = 0;
    // A page's outcomes commit while the next page is claimed and sent.
    const recorded: Promise<void>[] = [];
    try {
      for (;;) {
        const due = (await this.#due()).filter((d) => !this.#inFlight.has(d.delivery_id));
        if (due.length === 0) return made;
        // The lease covers the page's last POST at the worst: every lane ahead of it timing out.
        const leaseMs = Math.ceil(due.length / this.options.concurrency) * this.options.timeoutMs + LEASE_MARGIN_MS;
        const claimed = (await Promise.all(due.map((d) => this.#claim(d, leaseMs)))).filter((c) => c !== null);
        made += claimed.length;
        const secrets = await this.secretsOf(claimed.map((c) => c.delivery));
        const page = await this.#pool(claimed, (c) =>
          this.#attempt(c.delivery, c.attempt, c.version, secrets.get(c.delivery.delivery_id) ?? null),
        );
        recorded.push(page.recorded);
        if (due.length < PAGE || claimed.length === 0) return made;
      }
    } finally {
      await Promise.all(recorded);
    }
  }

  /** Waits for attempts under way (engine shutdown). */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.#inFlight.values()]);
  }

  /** Pending deliveries whose time has come, and taken ones whose lease ran out (their worker vanished). */
  async #due(): Promise<WebhookDeliveriesTable[]> {
    const now = this.clock.now().toISOString();
    const pending = await this.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', now)
      .orderBy('next_attempt_at')
      .limit(PAGE)
      .execute();
    const lost = await this.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('status', '=', 'delivering')
      .where('lease_until', '<=', now)
      .orderBy('lease_until')
      .limit(PAGE - pending.length)
      .execute();
    return [...pending, ...lost];
  }

  /** Lanes of `concurrency` POSTs; each outcome is recorded without holding its lane. Resolves, once every POST answered, with their recording (wrapped: a promise would be awaited with it). */
  async #pool<T>(items: readonly T[], work: (item: T) => Promise<() => Promise<void>>): Promise<{ recorded: Promise<void> }> {
    const recording: Promise<void>[] = [];
    let next = 0;
    const lane = async () => {
      while (next < items.length) {
        const record = await work(items[next++]!);
        recording.push(record());
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.options.concurrency, items.length) }, lane));
    const all = Promise.all(recording).then(() => undefined);
    // Awaited by runDue after the next page; handled here so a failure is not reported as unhandled meanwhile.
    all.catch(() => undefined);
    return { recorded: all };
  }

  /** Appends the attempt's start at the version read; null when the delivery is no longer due or another worker took it. */
  async #claim(
    delivery: WebhookDeliveriesTable,
    leaseMs: number,
  ): Promise<{ delivery: WebhookDeliveriesTable; attempt: number; version: number } | null> {
    const started = this.clock.now();
    const command: DeliveryCommand = {
      type: 'StartAttempt',
      data: {
        deliveryId: delivery.delivery_id,
        now: started.toISOString(),
        leaseUntil: new Date(started.getTime() + leaseMs).toISOString(),
      },
    };
    const metadata = this.#metadata(delivery);
    try {
      // Rows projected before the read model kept the version are claimed by reading their stream.
      if (delivery.stream_version === null) {
        const claimed = await handleCommand(this.store, deliveryStream(delivery.delivery_id), deliveryDecider, command, metadata);
        return { delivery, attempt: claimed.state.attempts, version: claimed.events.at(-1)!.streamVersion };
      }
      const events = deliveryDecider.decide(command, stateOf(delivery));
      const result = await this.store.append(deliveryStream(delivery.delivery_id), events, {
        expectedVersion: delivery.stream_version,
        metadata,
      });
      return { delivery, attempt: (events[0]!.data as { attempt: number }).attempt, version: result.nextVersion };
    } catch (error) {
      if (error instanceof ConflictError) return null;
      throw error;
    }
  }

  #metadata(delivery: WebhookDeliveriesTable) {
    return { businessId: delivery.business_id, actor: WORKER };
  }

  /** Sends one claimed attempt; resolves, once the POST answered, with the recording of its outcome. */
  async #attempt(
    delivery: WebhookDeliveriesTable,
    attempt: number,
    version: number,
    secrets: string[] | null,
  ): Promise<() => Promise<void>> {
    let done!: () => void;
    this.#inFlight.set(delivery.delivery_id, new Promise<void>((r) => (done = r)));
    const release = () => {
      this.#inFlight.delete(delivery.delivery_id);
      done();
    };
    let sent: SendResult;
    try {
      sent = await this.send(delivery, secrets);
    } catch (error) {
      release();
      throw error;
    }
    return () => this.#finish(delivery, attempt, version, sent).finally(release);
  }

  async #finish(delivery: WebhookDeliveriesTable, attempt: number, version: number, sent: SendResult): Promise<void> {
    const { outcome, statusCode, error, retryAfterMs, durationMs } = sent;
    const finished = this.clock.now();
    let result: AttemptOutcome = outcome;
    let nextAttemptAt: string | null = null;
    if (outcome === 'retry') {
      const delay = retryDelayMs(attempt, Math.random(), retryAfterMs);
      if (delay === null) result = 'gave_up';
      else nextAttemptAt = new Date(finished.getTime() + delay).toISOString();
    }
    const data: AttemptFinishedData = {
      deliveryId: delivery.delivery_id,
      attempt,
      finishedAt: finished.toISOString(),
      outcome: result,
      statusCode,
      error,
      durationMs,
      nextAttemptAt,
    };
    const claimed: DeliveryState = { exists: true, status: 'delivering', attempts: attempt, nextAttemptAt: null, leaseUntil: null };
    try {
      await this.store.append(deliveryStream(delivery.delivery_id), deliveryDecider.decide({ type: 'FinishAttempt', data }, claimed), {
        expectedVersion: version,
        metadata: this.#metadata(delivery),
      });
    } catch (err) {
      // The lease ran out and another worker took the delivery: its attempt is the one that counts.
      if (!(err instanceof ConflictError)) throw err;
      this.logger.warn({ deliveryId: delivery.delivery_id, attempt }, 'webhook attempt finished after its lease');
    }
  }

  private async send(
    delivery: WebhookDeliveriesTable,
    secrets: string[] | null,
  ): Promise<{
    outcome: AttemptOutcome;
    statusCode: number | null;
    error: string | null;
    retryAfterMs: number | null;
    durationMs: number;
  }> {
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
