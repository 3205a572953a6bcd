import type { Kysely } from 'kysely';
import { newWebhookSecret } from '../auth/secrets.js';
import type { Clock } from '../clock.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import { newId } from '../ids.js';
import { handleCommand, type EventStore } from '../store/index.js';
import { endpointDecider } from './endpoint-decider.js';
import { EVENT_TYPES, subscribedEndpointStream, type EventType } from './events.js';
import type { SubscribedEndpointsTable, SubscribedEndpointTables } from './endpoints-projection.js';

export interface EndpointActor {
  businessId: string;
  userId?: string;
  requestId?: string;
}

/** A subscribed endpoint as its business sees it; the secret is shown only when made (creation, rotation). */
export interface SubscribedEndpoint {
  id: string;
  url: string;
  eventTypes: EventType[];
  description: string;
  createdAt: string;
  updatedAt: string;
}

export interface EndpointInput {
  url: string;
  eventTypes: readonly string[];
  description?: string;
}

/** Endpoints per business: enough for one per team or system, few enough that a page of events fans out cheaply. */
export const MAX_ENDPOINTS = 20;
const MAX_DESCRIPTION = 500;

const toEndpoint = (r: SubscribedEndpointsTable): SubscribedEndpoint => ({
  id: r.endpoint_id,
  url: r.url,
  eventTypes: JSON.parse(r.event_types) as EventType[],
  description: r.description,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** The subscribed types, checked: a non-empty list of known types, each once. */
export function checkEventTypes(types: readonly string[], field = 'eventTypes'): EventType[] {
  if (!Array.isArray(types) || types.length === 0) throw new ValidationError(`${field} must list at least one event type`, field);
  for (const t of types) {
    if (!(EVENT_TYPES as readonly string[]).includes(t)) {
      throw new ValidationError(`${field}: unknown event type ${JSON.stringify(t)}; the types are ${EVENT_TYPES.join(', ')}`, field);
    }
  }
  return [...new Set(types)] as EventType[];
}

function checkDescription(description: string | undefined): string {
  if (description === undefined) return '';
  if (typeof description !== 'string' || description.length > MAX_DESCRIPTION) {
    throw new ValidationError(`description must be text of at most ${MAX_DESCRIPTION} characters`, 'description');
  }
  return description;
}

/**
 * A business's subscribed endpoints: each has its URL, its event types and its own signing secret. Every change
 * is an event on the endpoint's stream; the events-out subscriber reads the read model to fan events out.
 */
export class SubscribedEndpoints {
  readonly #db: Kysely<SubscribedEndpointTables>;

  constructor(
    db: Kysely<any>,
    private readonly store: EventStore,
    private readonly clock: Clock,
    private readonly checkUrl: (url: string, field: string) => Promise<string>,
  ) {
    this.#db = db;
  }

  /** Creates an endpoint; its secret is returned here and on rotation only. */
  async create(actor: EndpointActor, input: EndpointInput): Promise<SubscribedEndpoint & { secret: string }> {
    const eventTypes = checkEventTypes(input.eventTypes);
    const description = checkDescription(input.description);
    const url = await this.checkUrl(input.url, 'url');
    const { count } = await this.#db
      .selectFrom('webhook_subscribed_endpoints')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('business_id', '=', actor.businessId)
      .executeTakeFirstOrThrow();
    if (Number(count) >= MAX_ENDPOINTS) {
      throw new ConflictError(`a business can have at most ${MAX_ENDPOINTS} webhook endpoints; delete one first`);
    }
    const now = this.clock.now();
    const endpointId = `ep_${newId(now)}`;
    const secret = newWebhookSecret();
    await handleCommand(
      this.store,
      subscribedEndpointStream(actor.businessId, endpointId),
      endpointDecider,
      { type: 'Create', data: { endpointId, url, eventTypes, description, secret, createdAt: now.toISOString() } },
      this.#metadata(actor),
    );
    return { ...(await this.get(actor.businessId, endpointId)), secret };
  }

  async list(businessId: string): Promise<SubscribedEndpoint[]> {
    const rows = await this.#db
      .selectFrom('webhook_subscribed_endpoints')
      .selectAll()
      .where('business_id', '=', businessId)
      .orderBy('created_at')
      .orderBy('endpoint_id')
      .execute();
    return rows.map(toEndpoint);
  }

  async get(businessId: string, endpointId: string): Promise<SubscribedEndpoint> {
    return toEndpoint(await this.#row(businessId, endpointId));
  }

  /** Changes the URL, the types or the description; what is left out stays. */
  async update(actor: EndpointActor, endpointId: string, input: Partial<EndpointInput>): Promise<SubscribedEndpoint> {
    await this.#row(actor.businessId, endpointId);
    const change = {
      ...(input.eventTypes === undefined ? {} : { eventTypes: checkEventTypes(input.eventTypes) }),
      ...(input.description === undefined ? {} : { description: checkDescription(input.description) }),
      ...(input.url === undefined ? {} : { url: await this.checkUrl(input.url, 'url') }),
    };
    await handleCommand(
      this.store,
      subscribedEndpointStream(actor.businessId, endpointId),
      endpointDecider,
      { type: 'Change', data: { endpointId, ...change, changedAt: this.clock.now().toISOString() } },
      this.#metadata(actor),
    );
    return this.get(actor.businessId, endpointId);
  }

  /** Deletes an endpoint: no event is sent to it any more, and deliveries still pending to it are given up. */
  async delete(actor: EndpointActor, endpointId: string): Promise<void> {
    await this.#row(actor.businessId, endpointId);
    await handleCommand(
      this.store,
      subscribedEndpointStream(actor.businessId, endpointId),
      endpointDecider,
      { type: 'Delete', data: { endpointId, deletedAt: this.clock.now().toISOString() } },
      this.#metadata(actor),
    );
  }

  /** A new secret for the endpoint; the old one keeps signing beside it for 24 hours. */
  async rotateSecret(actor: EndpointActor, endpointId: string): Promise<{ secret: string; previousValidUntil: string }> {
    await this.#row(actor.businessId, endpointId);
    const secret = newWebhookSecret();
    const { events } = await handleCommand(
      this.store,
      subscribedEndpointStream(actor.businessId, endpointId),
      endpointDecider,
      { type: 'RotateSecret', data: { endpointId, secret, at: this.clock.now() } },
      this.#metadata(actor),
    );
    const rotated = events[0] as { data: { previousValidUntil: string } };
    return { secret, previousValidUntil: rotated.data.previousValidUntil };
  }

  /** The secrets a delivery to this endpoint is signed with (current, and the previous within its overlap); null once deleted. */
  async secrets(endpointId: string): Promise<string[] | null> {
    const row = await this.#db
      .selectFrom('webhook_subscribed_endpoints')
      .selectAll()
      .where('endpoint_id', '=', endpointId)
      .executeTakeFirst();
    if (!row) return null;
    const now = this.clock.now().toISOString();
    return row.previous_secret && row.previous_valid_until && row.previous_valid_until > now
      ? [row.secret, row.previous_secret]
      : [row.secret];
  }

  async #row(businessId: string, endpointId: string): Promise<SubscribedEndpointsTable> {
    const row = await this.#db
      .selectFrom('webhook_subscribed_endpoints')
      .selectAll()
      .where('business_id', '=', businessId)
      .where('endpoint_id', '=', endpointId)
      .executeTakeFirst();
    if (!row) throw new NotFoundError('Webhook endpoint not found');
    return row;
  }

  #metadata(actor: EndpointActor) {
    return { businessId: actor.businessId, actor: actor.userId ?? 'api', requestId: actor.requestId };
  }
}
