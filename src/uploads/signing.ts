import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { MIN_SECRET_LENGTH } from '../auth/secrets.js';
import type { Secrets } from '../store/index.js';

/** What a signed URL grants: one method on one key until `expires` (Unix seconds), for at most `max` bytes. */
export interface Grant {
  method: 'PUT' | 'GET';
  key: string;
  expires: number;
  max: number;
}

export const sign = (secret: Buffer, g: Grant): string =>
  createHmac('sha256', secret).update(`${g.method}\n${g.key}\n${g.expires}\n${g.max}`).digest('base64url');

/** Does `signature` match the grant under any of `secrets`? */
export function signatureMatches(secrets: readonly Buffer[], grant: Grant, signature: string): boolean {
  const given = Buffer.from(signature);
  return secrets.some((secret) => {
    const expected = Buffer.from(sign(secret, grant));
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
}

export const SIGNING_KEY_FILE = 'upload-signing.key';

export const newUploadKey = (): string => randomBytes(32).toString('hex');

/**
 * The HMAC keys of upload URLs, the first signing and every one verifying. They must outlive restarts, or every URL
 * handed out would die with the process, and be the same on every node, or a URL one node issued would fail on the
 * next: UPLOAD_SIGNING_SECRET when set, else a random key the store keeps for all the nodes of the log (generated
 * once; with the key it replaced while a rotation reaches every node). Read at each use, so a rotation takes at once.
 */
export function signingSecrets(secrets: Secrets, configured?: string): () => Promise<Buffer[]> {
  if (configured !== undefined && configured.length < MIN_SECRET_LENGTH)
    throw new Error(
      `the upload signing secret (UPLOAD_SIGNING_SECRET) must be at least ${MIN_SECRET_LENGTH} characters, got ${configured.length}`,
    );
  if (configured) {
    const fixed = [createHash('sha256').update(configured).digest()];
    return async () => fixed;
  }
  return async () => {
    const { value, previous } = await secrets.get(SIGNING_KEY_FILE, newUploadKey);
    return [value, ...(previous ? [previous] : [])].map((hex) => Buffer.from(hex, 'hex'));
  };
}
