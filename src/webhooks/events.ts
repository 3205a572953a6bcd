/**
 * Events of webhook endpoints (the business's default one, and the subscribed endpoints, several per business),
 * of deliveries (one stream per delivery), and of the events-out subscriber's checkpoint.
 */
import { inStreamId } from '../stream-ids.js';

export type DeliveryStatus = 'pending' | 'delivering' | 'delivered' | 'failed';

/** What one attempt came to: delivered (2xx), retry (scheduled again), gave_up (410, exhausted, or unsignable). */
export type AttemptOutcome = 'delivered' | 'retry' | 'gave_up';

export interface DeliveryScheduledData {
  deliveryId: string;
  /** The Standard Webhooks `webhook-id`: the same on every attempt, so receivers can drop duplicates. */
  webhookId: string;
  url: string;
  eventType: string;
  /** The exact bytes signed and sent, fixed once so every retry carries the same body. */
  body: string;
  /** The record the delivery reports on (a screening check id), for listings. */
  subject: string;
  scheduledAt: string;
  /** The business the delivery is for, when the append is not made in its name (the events-out subscriber's). */
  businessId?: string;
  /** The subscribed endpoint it goes to, whose secret signs it; absent: signed with the business's webhook secret. */
  endpointId?: string;
}

/** The event types a business can subscribe its endpoints to (docs/webhooks.md). */
export const EVENT_TYPES = [
  'decision.created',
  'decision.flagged',
  'case.created',
  'case.updated',
  'case.status_changed',
  'case.alert_added',
  'cdd.request.completed',
  'screening.match.found',
  'report.status_changed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface EndpointCreatedData {
  endpointId: string;
  url: string;
  eventTypes: EventType[];
  description: string;
  /** Kept in the clear: a signature needs the key itself (docs/security.md). */
  secret: string;
  createdAt: string;
}

export interface EndpointChangedData {
  endpointId: string;
  url?: string;
  eventTypes?: EventType[];
  description?: string;
  changedAt: string;
}

export interface EndpointSecretRotatedData {
  endpointId: string;
  secret: string;
  previousSecret: string;
  /** Until then deliveries are signed with both secrets, so receivers can roll over without downtime. */
  previousValidUntil: string;
}

export interface AttemptStartedData {
  deliveryId: string;
  attempt: number;
  startedAt: string;
  /** Until then no other worker may take the delivery; after it, an unfinished attempt counts as lost. */
  leaseUntil: string;
}

export interface AttemptFinishedData {
  deliveryId: string;
  attempt: number;
  finishedAt: string;
  outcome: AttemptOutcome;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  nextAttemptAt: string | null;
}

/** A page of attempts claimed by one worker, all started at once under one lease. */
export interface AttemptsStartedData {
  attempts: { deliveryId: string; attempt: number }[];
  startedAt: string;
  leaseUntil: string;
}

export type WebhookEvent =
  | { type: 'WebhookEndpointSet'; data: { url: string; setAt: string } }
  | { type: 'WebhookDeliveryScheduled'; data: DeliveryScheduledData }
  /** Deliveries scheduled together (a page of events out), each for its own business; no stream of their own until redelivered */
  | { type: 'WebhookDeliveriesScheduled'; data: { deliveries: (DeliveryScheduledData & { businessId: string })[] } }
  /** Written by workers before pages were claimed in one event; still read. */
  | { type: 'WebhookAttemptStarted'; data: AttemptStartedData }
  /** Written by workers before a page's outcomes were recorded together; still read. */
  | { type: 'WebhookAttemptFinished'; data: AttemptFinishedData }
  /** A page claimed on WEBHOOK_CLAIMS_STREAM at the version read, so one worker across nodes makes each attempt. */
  | { type: 'WebhookAttemptsStarted'; data: AttemptsStartedData }
  /** Outcomes of claimed attempts; one whose attempt is no longer the delivery's current one (its lease ran out) is kept but changes nothing. */
  | { type: 'WebhookAttemptsFinished'; data: { outcomes: AttemptFinishedData[] } }
  | { type: 'WebhookRedeliveryRequested'; data: { deliveryId: string; requestedAt: string } }
  | { type: 'WebhookEndpointCreated'; data: EndpointCreatedData }
  | { type: 'WebhookEndpointChanged'; data: EndpointChangedData }
  | { type: 'WebhookEndpointSecretRotated'; data: EndpointSecretRotatedData }
  | { type: 'WebhookEndpointDeleted'; data: { endpointId: string; deletedAt: string } }
  /** The events-out subscriber has scheduled the deliveries of every event up to this log position. */
  | { type: 'WebhookEventsForwarded'; data: { through: number } };

export const endpointStream = (businessId: string) => `webhook-endpoint-${inStreamId(businessId)}`;
export const deliveryStream = (deliveryId: string) => `webhook-delivery-${deliveryId}`;
export const subscribedEndpointStream = (businessId: string, endpointId: string) =>
  `webhook-subscribed-${inStreamId(businessId)}-${endpointId}`;
/** The metadata of the delivery worker's claims and outcomes. */
export const WORKER_METADATA = { businessId: 'system', actor: 'webhook-worker' } as const;
/** The events-out subscriber's checkpoint: appending at its version claims the next page, on one node only. */
export const EVENTS_OUT_STREAM = 'webhook-events-out';
/** The deliveries scheduled by the events-out page that ends at log position `through`. */
export const scheduledStream = (through: number) => `webhook-scheduled-${through}`;
/** Every claim of a page of attempts: appending at its version is what keeps two workers from claiming one attempt. */
export const WEBHOOK_CLAIMS_STREAM = 'webhook-claims';
/** One append of outcomes, made by one worker. */
export const outcomesStream = (id: string) => `webhook-outcomes-${id}`;
