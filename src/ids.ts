import { randomBytes } from 'node:crypto';

/**
 * Opaque 24-hex identifiers, shaped like the ObjectIds the interface's clients already store:
 * a seconds prefix keeps them roughly time-ordered, which makes logs and listings easier to read.
 */
export function newId(now: Date = new Date()): string {
  const seconds = Math.floor(now.getTime() / 1000).toString(16).padStart(8, '0');
  return seconds + randomBytes(8).toString('hex');
}

/** A random URL-safe token of `bytes` bytes of entropy, with a readable prefix. */
export function newToken(prefix: string, bytes = 32): string {
  return `${prefix}${randomBytes(bytes).toString('base64url')}`;
}
