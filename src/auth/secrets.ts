import { randomBytes, timingSafeEqual } from 'node:crypto';
import { sha256, sha256Hex } from '../digest.js';
import { newToken } from '../ids.js';

export const newApiKey = () => newToken('ck_', 18);
export const newApiSecret = () => newToken('cs_', 32);
/** Standard Webhooks' secret format: `whsec_` and base64 of the raw key, so receivers' libraries accept it as is. */
export const newWebhookSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/**
 * The shortest secret accepted from outside (BOOTSTRAP_API_SECRET, UPLOAD_SIGNING_SECRET, a chosen apiSecret).
 * Generated ones are 32 random bytes; a short chosen one could be guessed offline from its fast, unsalted hash.
 */
export const MIN_SECRET_LENGTH = 32;

/** API secrets carry 256 bits of entropy, so a fast hash suffices: there is nothing to brute-force. */
export const hashSecret = (secret: string) => sha256Hex(secret);

export function secretMatches(secret: string, storedHash: string): boolean {
  const a = sha256(secret);
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
