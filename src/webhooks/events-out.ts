import type { Kysely } from 'kysely';
import { ExpectedVersionConflictError, type EventStore, type StoredEvent } from '../store/index.js';
import { EVENT_MAP, SOURCE_TYPES } from './event-map.js';
import { EVENTS_OUT_STREAM, scheduledStream, type DeliveryScheduledData, type EventType, type WebhookEvent } from './events.js';
import type { SubscribedEndpointTables } from './endpoints-projection.js';

/** One delivery's data (WebhookService.deliveryData). */
export type ScheduleDelivery = (input: {
  url: string;
  eventType: string;
  subject: string;
  payload: unknown;
  businessId: string;
  endpointId: string;
}) => DeliveryScheduledData & { businessId: string };

interface Subscriber {
  endpointId: string;
  url: string;
  types: ReadonlySet<EventType>;
  createdPosition: number;
}

const METADATA = { businessId: 'system', actor: 'webhook-events-out' } as const;

/** The events after which the subscribed endpoints must be read again. */
const ENDPOINT_CHANGES: ReadonlySet<string> = new Set([
  'WebhookEndpointCreated',
  'WebhookEndpointChanged',
  'WebhookEndpointSecretRotated',
  'WebhookEndpointDeleted',
] satisfies WebhookEvent['type'][]);

/**
 * Events out: tails the log like a projection with a checkpoint of its own, maps each stored domain event to
 * webhook events (event-map.ts) and schedules a delivery into the outbox for every endpoint of the event's
 * business that subscribes to its type. The checkpoint is an event appended at the version read, in the same
 * append as the page's deliveries, so a page is forwarded once however many nodes run this: a second node's
 * append conflicts and is dropped. Decisions never wait on it: it reads what they already committed.
 */
export class EventsOut {
  readonly #db: Kysely<SubscribedEndpointTables>;
  /** The checkpoint stream's version and position as last read or written here. */
  #checkpoint = { version: 0, through: 0 };
  /** Whether the checkpoint stream may have grown since (at start, or after another node's append won). */
  #stale = true;
  /**
   * The subscribed endpoints by business, kept from one read until an endpoint's change is committed (here, or by
   * another node and heard through the tail): a commit with no subscriber for its events then costs no query.
   */
  #subscribed: Map<string, Subscriber[]> | undefined;
  /** Counts endpoint changes, so that a read overtaken by one is not kept. */
  #changes = 0;

  constructor(
    db: Kysely<any>,
    private readonly store: EventStore,
    private readonly schedule: ScheduleDelivery,
    private readonly pageSize = 1000,
  ) {
    this.#db = db;
  }

  /** Whether an event of this business may be forwarded: not when the endpoints are known and none is its business's. */
  mayForward(businessId: string): boolean {
    return this.#subscribed === undefined || this.#subscribed.has(businessId);
  }

  /** Committed events, as the store tells its subscribers: an endpoint's change drops the endpoints kept. */
  observe(events: readonly StoredEvent[]): void {
    for (const event of events) {
      if (!ENDPOINT_CHANGES.has(event.type)) continue;
      this.#subscribed = undefined;
      this.#changes++;
      return;
    }
  }

  /** Forwards every page of events up to the head; resolves with the number of deliveries scheduled. */
  async runDue(): Promise<number> {
    let scheduled = 0;
    for (;;) {
      const page = await this.#forwardPage();
      if (page === null) return scheduled;
      scheduled += page;
    }
  }

  /** One page: null when there was nothing to forward. */
  async #forwardPage(): Promise<number | null> {
    const subscribers = await this.#subscribers();
    if (subscribers.size === 0) return null;
    const checkpoint = await this.#readCheckpoint();
    // An endpoint receives the events after its creation only, so nothing older than the oldest needs reading.
    const oldest = Math.min(...[...subscribers.values()].flat().map((s) => s.createdPosition));
    const after = Math.max(checkpoint.through, oldest);
    const page = await this.store.readAll({ after, limit: this.pageSize, types: SOURCE_TYPES });
    if (page.length === 0) return null;
    const deliveries = page.flatMap((event) => this.#deliveries(event, subscribers.get(event.metadata.businessId)));
    const through = page[page.length - 1]!.position;
    const forwarded: WebhookEvent = { type: 'WebhookEventsForwarded', data: { through } };
    // The page's deliveries are one event: a delivery costs the log a share of it, not an event and a stream of its own.
    const scheduled: WebhookEvent = { type: 'WebhookDeliveriesScheduled', data: { deliveries } };
    try {
      const [result] = await this.store.appendMany(
        [
          {
            streamId: EVENTS_OUT_STREAM,
            events: [forwarded],
            expectedVersion: checkpoint.version === 0 ? 'no_stream' : checkpoint.version,
          },
          ...(deliveries.length === 0
            ? []
            : [{ streamId: scheduledStream(through), events: [scheduled], expectedVersion: 'no_stream' as const }]),
        ],
        METADATA,
      );
      this.#checkpoint = { version: result!.nextVersion, through };
    } catch (error) {
      if (!(error instanceof ExpectedVersionConflictError)) throw error;
      // Another node forwarded this page first: read where it got to and go on from there.
      this.#stale = true;
      return 0;
    }
    return deliveries.length;
  }

  #deliveries(event: StoredEvent, subscribers: readonly Subscriber[] | undefined): ReturnType<ScheduleDelivery>[] {
    if (!subscribers) return [];
    const mapped = EVENT_MAP[event.type]?.(event) ?? [];
    const writes: ReturnType<ScheduleDelivery>[] = [];
    for (const out of mapped) {
      const payload = { type: out.type, timestamp: event.recordedAt, data: out.data };
      for (const s of subscribers) {
        if (s.createdPosition >= event.position || !s.types.has(out.type)) continue;
        writes.push(
          this.schedule({
            url: s.url,
            eventType: out.type,
            subject: out.subject,
            payload,
            businessId: event.metadata.businessId,
            endpointId: s.endpointId,
          }),
        );
      }
    }
    return writes;
  }

  async #subscribers(): Promise<Map<string, Subscriber[]>> {
    if (this.#subscribed) return this.#subscribed;
    const changes = this.#changes;
    const rows = await this.#db.selectFrom('webhook_subscribed_endpoints').selectAll().execute();
    const byBusiness = new Map<string, Subscriber[]>();
    for (const r of rows) {
      const list = byBusiness.get(r.business_id) ?? [];
      list.push({
        endpointId: r.endpoint_id,
        url: r.url,
        types: new Set(JSON.parse(r.event_types) as EventType[]),
        createdPosition: Number(r.created_position),
      });
      byBusiness.set(r.business_id, list);
    }
    if (changes === this.#changes) this.#subscribed = byBusiness;
    return byBusiness;
  }

  async #readCheckpoint(): Promise<{ version: number; through: number }> {
    if (!this.#stale) return this.#checkpoint;
    const newer = await this.store.readStream(EVENTS_OUT_STREAM, this.#checkpoint.version + 1);
    const last = newer.at(-1) as StoredEvent<'WebhookEventsForwarded', { through: number }> | undefined;
    if (last) this.#checkpoint = { version: last.streamVersion, through: last.data.through };
    this.#stale = false;
    return this.#checkpoint;
  }
}
