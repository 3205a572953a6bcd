import { randomBytes, randomFillSync } from 'node:crypto';

const ID_RANDOM_BYTES = 8;
/**
 * Random bytes for ids, drawn from the CSPRNG 4 KB at a time (as node:crypto's randomUUID does): one
 * randomBytes(8) call costs about 6 µs under OpenSSL 3, and a decision that opens a case makes an id.
 */
const pool = Buffer.alloc(ID_RANDOM_BYTES * 512);
let offset = pool.length;

/**
 * Opaque 24-hex identifiers, shaped like the ObjectIds the interface's clients already store:
 * a seconds prefix keeps them roughly time-ordered, which makes logs and listings easier to read.
 */
export function newId(now: Date = new Date()): string {
  const seconds = Math.floor(now.getTime() / 1000)
    .toString(16)
    .padStart(8, '0');
  if (offset === pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const random = pool.toString('hex', offset, offset + ID_RANDOM_BYTES);
  offset += ID_RANDOM_BYTES;
  return seconds + random;
}

/** A random URL-safe token of `bytes` bytes of entropy, with a readable prefix. */
export function newToken(prefix: string, bytes = 32): string {
  return `${prefix}${randomBytes(bytes).toString('base64url')}`;
}
