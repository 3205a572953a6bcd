import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { newToken } from '../ids.js';

export const newApiKey = () => newToken('ck_', 18);
export const newApiSecret = () => newToken('cs_', 32);
/** Standard Webhooks' secret format: `whsec_` and base64 of the raw key, so receivers' libraries accept it as is. */
export const newWebhookSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/** API secrets carry 256 bits of entropy, so a fast hash suffices: there is nothing to brute-force. */
export const hashSecret = (secret: string) => hash('sha256', secret);

export function secretMatches(secret: string, storedHash: string): boolean {
  const a = hash('sha256', secret, 'buffer');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
