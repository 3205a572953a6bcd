import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import { ExpectedVersionConflictError, type EventStore } from '../store/index.js';
import { parseRetryAfter, retryDelayMs } from './backoff.js';
import { WEBHOOK_CLAIMS_STREAM, WORKER_METADATA, type AttemptFinishedData, type AttemptOutcome, type WebhookEvent } from './events.js';
import { giveWay } from './give-way.js';
import { OutcomeLog } from './outcome-log.js';
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

/** A taken delivery is the worker's until its POST could have timed out, plus this margin; past it, the attempt counts as lost. */
const LEASE_MARGIN_MS = 50_000;
/** Deliveries claimed together: one event claims them, and the next page is read while none is left. */
const PAGE = 500;
/** The longest a page waits for the process to be no longer saturated: at saturation a backlog still moves a page at a time. */
const MAX_GIVE_WAY_MS = 2_000;

type SendResult = Awaited<ReturnType<DeliveryWorker['send']>>;
type Claimed = { delivery: WebhookDeliveriesTable; attempt: number };

/**
 * Attempts due deliveries, a page at a time. A page is claimed by one event (WebhookAttemptsStarted) appended on
 * the claims stream at the version read before the page's rows: a claim by another worker or node in between
 * conflicts, so two workers never send the same attempt; the claim's lease covers the page's last POST at worst.
 * The outcomes are recorded as the POSTs answer, those answered together in one event (WebhookAttemptsFinished),
 * without holding the next POST back; an outcome recorded after its lease ran out and another worker took the
 * delivery changes nothing (the projection keeps the newer attempt). Until an outcome is recorded the claim holds,
 * so a worker that dies mid-page loses nothing: its deliveries are sent again once their lease runs out.
 * Before each page the worker gives way while the process is saturated (give-way.ts), for a bounded time.
 * Time comes from the engine clock, so tests drive retries with `runDue()` and a ManualClock.
 */
export class DeliveryWorker {
  readonly #inFlight = new Map<string, Promise<void>>();
  readonly #outcomes: OutcomeLog;

  constructor(
    private readonly db: Kysely<WebhookTables>,
    private readonly store: EventStore,
    private readonly clock: Clock,
    /** The secrets each delivery of a page is signed with, by delivery id; null when its endpoint was deleted. */
    private readonly secretsOf: (deliveries: readonly WebhookDeliveriesTable[]) => Promise<Map<string, string[] | null>>,
    private readonly options: WorkerOptions,
  ) {
    this.#outcomes = new OutcomeLog(store, clock);
  }

  /** Attempts every delivery due now; resolves with the number of attempts made, once every outcome is recorded. */
  async runDue(): Promise<number> {
    let made = 0;
    // A page's outcomes commit while the next page is claimed and sent.
    const recorded: Promise<void>[] = [];
    try {
      for (;;) {
        await giveWay(MAX_GIVE_WAY_MS);
        const page = await this.#claimPage();
        if (page === null) return made;
        made += page.claimed.length;
        const secrets = await this.secretsOf(page.claimed.map((c) => c.delivery));
        const sent = await this.#pool(page.claimed, (c) => this.#attempt(c, secrets.get(c.delivery.delivery_id) ?? null));
        recorded.push(sent.recorded);
        if (page.due < PAGE) return made;
      }
    } finally {
      await Promise.all(recorded);
    }
  }

  /** Waits for attempts under way (engine shutdown). */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.#inFlight.values()]);
  }

  /** Claims the due deliveries of a page in one event; null when none is due. */
  async #claimPage(): Promise<{ due: number; claimed: Claimed[] } | null> {
    for (;;) {
      // The version first: a claim committed after it makes the append below conflict, whatever the rows showed.
      const version = await this.store.streamVersion(WEBHOOK_CLAIMS_STREAM);
      const now = this.clock.now();
      const due = (await this.#due(now.toISOString())).filter((d) => !this.#inFlight.has(d.delivery_id));
      if (due.length === 0) return null;
      const claimed = due.map((delivery) => ({ delivery, attempt: delivery.attempts + 1 }));
      // The lease covers the page's last POST at the worst: every lane ahead of it timing out.
      const leaseMs = Math.ceil(due.length / this.options.concurrency) * this.options.timeoutMs + LEASE_MARGIN_MS;
      const event: WebhookEvent = {
        type: 'WebhookAttemptsStarted',
        data: {
          attempts: claimed.map((c) => ({ deliveryId: c.delivery.delivery_id, attempt: c.attempt })),
          startedAt: now.toISOString(),
          leaseUntil: new Date(now.getTime() + leaseMs).toISOString(),
        },
      };
      try {
        await this.store.append(WEBHOOK_CLAIMS_STREAM, [event], {
          expectedVersion: version === 0 ? 'no_stream' : version,
          metadata: WORKER_METADATA,
        });
        return { due: due.length, claimed };
      } catch (error) {
        // Another worker claimed meanwhile: read again what is still due.
        if (!(error instanceof ExpectedVersionConflictError)) throw error;
      }
    }
  }

  /** Pending deliveries whose time has come, and taken ones whose lease ran out (their worker vanished). */
  async #due(now: string): Promise<WebhookDeliveriesTable[]> {
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

  /** Sends one claimed attempt; resolves, once the POST answered, with the recording of its outcome. */
  async #attempt({ delivery, attempt }: Claimed, secrets: string[] | null): Promise<() => Promise<void>> {
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
    return () => this.#outcomes.record(this.#outcome(delivery, attempt, sent)).finally(release);
  }

  #outcome(delivery: WebhookDeliveriesTable, attempt: number, sent: SendResult): AttemptFinishedData {
    const { outcome, statusCode, error, retryAfterMs, durationMs } = sent;
    const finished = this.clock.now();
    let result: AttemptOutcome = outcome;
    let nextAttemptAt: string | null = null;
    if (outcome === 'retry') {
      const delay = retryDelayMs(attempt, Math.random(), retryAfterMs);
      if (delay === null) result = 'gave_up';
      else nextAttemptAt = new Date(finished.getTime() + delay).toISOString();
    }
    return {
      deliveryId: delivery.delivery_id,
      attempt,
      finishedAt: finished.toISOString(),
      outcome: result,
      statusCode,
      error,
      durationMs,
      nextAttemptAt,
    };
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
