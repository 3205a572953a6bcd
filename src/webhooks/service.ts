import type { Kysely } from 'kysely';
import type { AuthService } from '../auth/index.js';
import type { Clock } from '../clock.js';
import { NotFoundError } from '../errors.js';
import { newId } from '../ids.js';
import type { Logger } from '../logger.js';
import type { EventStore, StreamWrite } from '../store/index.js';
import { BackgroundLoop } from '../workers/loop.js';
import { checkWebhookUrl } from './address-policy.js';
import { deliveryDecider, stateOf } from './decider.js';
import { deliveryStream, endpointStream, type AttemptOutcome, type DeliveryScheduledData, type DeliveryStatus } from './events.js';
import type { WebhookAttemptsTable, WebhookDeliveriesTable, WebhookTables } from './projection.js';
import type { SubscribedEndpointTables } from './endpoints-projection.js';
import { DeliveryWorker } from './worker.js';
import { readPage } from '../projections/index.js';
import { SubscribedEndpoints } from './endpoints.js';
import { EventsOut } from './events-out.js';
import { SOURCE_TYPES } from './event-map.js';

export interface WebhookActor {
  businessId: string;
  userId?: string;
  requestId?: string;
}

export interface WebhookEndpoint {
  url: string | null;
  updatedAt: string | null;
}

export interface DeliveryAttempt {
  attempt: number;
  startedAt: string;
  finishedAt: string | null;
  outcome: AttemptOutcome | null;
  statusCode: number | null;
  error: string | null;
  durationMs: number | null;
}

export interface Delivery {
  id: string;
  webhookId: string;
  url: string;
  eventType: string;
  subject: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
  attemptLog: DeliveryAttempt[];
}

interface DeliveryInput {
  url: string;
  eventType: string;
  subject: string;
  payload: unknown;
  businessId?: string;
  endpointId?: string;
}

export interface WebhookServiceOptions {
  allowInsecure: boolean;
  timeoutMs?: number;
  concurrency?: number;
}

/** Deliveries whose endpoints are looked up in one query (SQLite binds at most 32,766 parameters). */
const LOOKUP_PAGE = 500;

const toAttempt = (a: WebhookAttemptsTable): DeliveryAttempt => ({
  attempt: a.attempt,
  startedAt: a.started_at,
  finishedAt: a.finished_at,
  outcome: a.outcome,
  statusCode: a.status_code,
  error: a.error,
  durationMs: a.duration_ms,
});

const toDelivery = (d: WebhookDeliveriesTable, attempts: readonly WebhookAttemptsTable[]): Delivery => ({
  id: d.delivery_id,
  webhookId: d.webhook_id,
  url: d.url,
  eventType: d.event_type,
  subject: d.subject,
  status: d.status,
  attempts: d.attempts,
  nextAttemptAt: d.next_attempt_at,
  lastStatusCode: d.last_status_code,
  lastError: d.last_error,
  createdAt: d.created_at,
  updatedAt: d.updated_at,
  attemptLog: attempts.filter((a) => a.delivery_id === d.delivery_id).map(toAttempt),
});

/**
 * Webhooks as a durable outbox: a delivery is an event, appended in the same transaction as the record it
 * reports (see `deliveryWrite`), attempted by the worker until delivered or given up, every attempt an event.
 */
export class WebhookService {
  readonly #db: Kysely<WebhookTables & SubscribedEndpointTables>;
  readonly #worker: DeliveryWorker;
  readonly #loop: BackgroundLoop;
  readonly #eventsOut: EventsOut;
  readonly #unfollowEndpoints: () => void;
  readonly #eventsOutLoop: BackgroundLoop;
  /** The business's subscribed endpoints, each with its event types and secret (events out). */
  readonly endpoints: SubscribedEndpoints;

  constructor(
    db: Kysely<any>,
    private readonly store: EventStore,
    private readonly clock: Clock,
    auth: AuthService,
    logger: Logger,
    private readonly options: WebhookServiceOptions,
  ) {
    this.#db = db;
    this.endpoints = new SubscribedEndpoints(db, store, clock, (url, field) => this.checkUrl(url, field));
    // A delivery to a subscribed endpoint is signed with that endpoint's secrets, any other with the business's.
    // Looked up once per page of deliveries: most of a page goes to a few endpoints.
    const secretsOf = async (deliveries: readonly WebhookDeliveriesTable[]): Promise<Map<string, string[] | null>> => {
      const endpointOf = new Map<string, string>();
      for (let i = 0; i < deliveries.length; i += LOOKUP_PAGE) {
        const rows = await this.#db
          .selectFrom('webhook_delivery_endpoints')
          .select(['delivery_id', 'endpoint_id'])
          .where(
            'delivery_id',
            'in',
            deliveries.slice(i, i + LOOKUP_PAGE).map((d) => d.delivery_id),
          )
          .execute();
        for (const r of rows) endpointOf.set(r.delivery_id, r.endpoint_id);
      }
      const looked = new Map<string, Promise<string[] | null>>();
      const once = (key: string, find: () => Promise<string[] | null>) => {
        if (!looked.has(key)) looked.set(key, find());
        return looked.get(key)!;
      };
      const secrets = new Map<string, string[] | null>();
      for (const d of deliveries) {
        const endpoint = endpointOf.get(d.delivery_id);
        secrets.set(
          d.delivery_id,
          await (endpoint
            ? once(`endpoint ${endpoint}`, () => this.endpoints.secrets(endpoint))
            : once(`business ${d.business_id}`, () => auth.webhookSecrets(d.business_id))),
        );
      }
      return secrets;
    };
    this.#worker = new DeliveryWorker(db, store, clock, secretsOf, {
      allowInsecure: options.allowInsecure,
      timeoutMs: options.timeoutMs ?? 10_000,
      concurrency: options.concurrency ?? 8,
    });
    this.#loop = new BackgroundLoop('webhook worker', () => this.runDue(), logger);
    this.#eventsOut = new EventsOut(db, store, (input) => ({ ...this.#deliveryData(input), businessId: input.businessId }));
    this.#unfollowEndpoints = store.subscribe((events) => this.#eventsOut.observe(events));
    this.#eventsOutLoop = new BackgroundLoop('webhook events out', () => this.forwardEvents(), logger);
  }

  /** A callback URL as accepted from a client: https and a public host, unless insecure webhooks are allowed. */
  checkUrl(url: string, field: string): Promise<string> {
    return checkWebhookUrl(url, field, this.options.allowInsecure);
  }

  async setEndpoint(actor: WebhookActor, url: string): Promise<WebhookEndpoint> {
    const checked = await this.checkUrl(url, 'url');
    await this.store.append(
      endpointStream(actor.businessId),
      [{ type: 'WebhookEndpointSet', data: { url: checked, setAt: this.clock.now().toISOString() } }],
      {
        metadata: { businessId: actor.businessId, actor: actor.userId ?? 'api', requestId: actor.requestId },
      },
    );
    return this.endpoint(actor.businessId);
  }

  async endpoint(businessId: string): Promise<WebhookEndpoint> {
    const row = await this.#db.selectFrom('webhook_endpoints').selectAll().where('business_id', '=', businessId).executeTakeFirst();
    return { url: row?.url ?? null, updatedAt: row?.updated_at ?? null };
  }

  /**
   * The write that schedules one delivery, for the caller to append atomically with the record it reports on.
   * The body is fixed here, so every attempt sends (and signs) the same bytes.
   */
  deliveryWrite(input: DeliveryInput): { deliveryId: string; write: StreamWrite } {
    const data = this.#deliveryData(input);
    const events = deliveryDecider.decide({ type: 'Schedule', data }, deliveryDecider.initialState());
    return { deliveryId: data.deliveryId, write: { streamId: deliveryStream(data.deliveryId), events, expectedVersion: 'no_stream' } };
  }

  #deliveryData(input: DeliveryInput): DeliveryScheduledData {
    const now = this.clock.now();
    return {
      deliveryId: newId(now),
      webhookId: `msg_${newId(now)}`,
      url: input.url,
      eventType: input.eventType,
      subject: input.subject,
      body: JSON.stringify(input.payload),
      scheduledAt: now.toISOString(),
      ...(input.businessId === undefined ? {} : { businessId: input.businessId }),
      ...(input.endpointId === undefined ? {} : { endpointId: input.endpointId }),
    };
  }

  /** The writes that deliver one payload to every business with an endpoint (a notice of the whole engine's). */
  async broadcastWrites(eventType: string, subject: string, payload: unknown): Promise<StreamWrite[]> {
    const endpoints = await this.#db.selectFrom('webhook_endpoints').select('url').orderBy('business_id').execute();
    return endpoints.map(({ url }) => this.deliveryWrite({ url, eventType, subject, payload }).write);
  }

  async list(
    businessId: string,
    query: { status?: DeliveryStatus; page: number; limit: number },
  ): Promise<{ deliveries: Delivery[]; total: number }> {
    let base = this.#db.selectFrom('webhook_deliveries').where('business_id', '=', businessId);
    if (query.status) base = base.where('status', '=', query.status);
    const { rows, total: found } = await readPage(
      base.selectAll().orderBy('created_at', 'desc').orderBy('delivery_id', 'desc'),
      base,
      query,
    );
    return { deliveries: await this.#withAttempts(rows), total: found };
  }

  async get(businessId: string, deliveryId: string): Promise<Delivery> {
    return (await this.#withAttempts([await this.#row(businessId, deliveryId)]))[0]!;
  }

  async #row(businessId: string, deliveryId: string): Promise<WebhookDeliveriesTable> {
    const row = await this.#db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('business_id', '=', businessId)
      .where('delivery_id', '=', deliveryId)
      .executeTakeFirst();
    if (!row) throw new NotFoundError('Delivery not found');
    return row;
  }

  /**
   * Sends a delivery again (after it failed, or once more after it succeeded), with the same webhook-id. Decided on
   * the read model, which holds the claims and outcomes recorded in pages; a claim that lands first makes the
   * projection pass the request over, as this check would have.
   */
  async redeliver(actor: WebhookActor, deliveryId: string): Promise<Delivery> {
    const row = await this.#row(actor.businessId, deliveryId);
    const events = deliveryDecider.decide({ type: 'Redeliver', data: { deliveryId, now: this.clock.now().toISOString() } }, stateOf(row));
    await this.store.append(deliveryStream(deliveryId), events, {
      metadata: { businessId: actor.businessId, actor: actor.userId ?? 'api', requestId: actor.requestId },
    });
    this.#loop.kick();
    return this.get(actor.businessId, deliveryId);
  }

  /** Attempts every delivery due now (tests call it after moving a ManualClock). */
  runDue(): Promise<number> {
    return this.#worker.runDue();
  }

  /** Schedules the deliveries of every event committed since the last call (tests call it by hand). */
  forwardEvents(): Promise<number> {
    return this.#eventsOut.runDue();
  }

  /**
   * Polls for due deliveries, and attempts new ones as soon as they are committed (here or by another process);
   * forwards subscribed events likewise.
   */
  start(intervalMs: number): void {
    const wakes = new Set(['WebhookDeliveryScheduled', 'WebhookDeliveriesScheduled', 'WebhookRedeliveryRequested']);
    this.#loop.start(this.store, intervalMs, (e) => wakes.has(e.type));
    const sources = new Set(SOURCE_TYPES);
    // A commit wakes events out only if its business has a subscribed endpoint (or the endpoints are not known).
    this.#eventsOutLoop.start(this.store, intervalMs, (e) => sources.has(e.type) && this.#eventsOut.mayForward(e.metadata.businessId));
  }

  async close(): Promise<void> {
    this.#unfollowEndpoints();
    await this.#eventsOutLoop.stop();
    await this.#loop.stop();
    await this.#worker.idle();
  }

  async #withAttempts(rows: readonly WebhookDeliveriesTable[]): Promise<Delivery[]> {
    if (rows.length === 0) return [];
    const attempts = await this.#db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where(
        'delivery_id',
        'in',
        rows.map((r) => r.delivery_id),
      )
      .orderBy('attempt')
      .execute();
    return rows.map((r) => toDelivery(r, attempts));
  }
}
