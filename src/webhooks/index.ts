export { checkWebhookUrl, isPublicAddress } from './address-policy.js';
export { MAX_ATTEMPTS, RETRY_DELAYS_MS } from './backoff.js';
export type { DeliveryStatus, WebhookEvent } from './events.js';
export { webhooksProjection } from './projection.js';
export { WebhookService, type Delivery, type DeliveryAttempt, type WebhookActor, type WebhookEndpoint } from './service.js';
export { signatureHeaders } from './signing.js';
