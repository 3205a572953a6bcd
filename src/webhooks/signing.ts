import { Webhook } from 'standardwebhooks';

/**
 * Standard Webhooks headers. The body is signed with every secret the business currently accepts (the
 * current one and, during a rotation's overlap, the previous one), space-separated, so a receiver holding
 * either verifies.
 */
export function signatureHeaders(webhookId: string, at: Date, body: string, secrets: readonly string[]): Record<string, string> {
  return {
    'webhook-id': webhookId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(webhookId, at, body)).join(' '),
  };
}
