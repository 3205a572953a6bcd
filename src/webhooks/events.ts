/** Events of webhook endpoints (one per business) and of deliveries (one stream per delivery). */

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

export type WebhookEvent =
  | { type: 'WebhookEndpointSet'; data: { url: string; setAt: string } }
  | { type: 'WebhookDeliveryScheduled'; data: DeliveryScheduledData }
  | { type: 'WebhookAttemptStarted'; data: AttemptStartedData }
  | { type: 'WebhookAttemptFinished'; data: AttemptFinishedData }
  | { type: 'WebhookRedeliveryRequested'; data: { deliveryId: string; requestedAt: string } };

export const endpointStream = (businessId: string) => `webhook-endpoint-${businessId}`;
export const deliveryStream = (deliveryId: string) => `webhook-delivery-${deliveryId}`;
