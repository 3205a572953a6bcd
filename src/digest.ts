// SHA-256 for the hot paths (hash chain, reference keys, API secrets). crypto.hash (Node 20.12
// and later) hashes in one call without a Hash object, ~1.5 µs less per call; earlier 20.x releases, which the
// engines field still admits, get the same digest from createHash. A namespace import, because a named import
// of an export the running Node lacks fails when the module loads.
import * as crypto from 'node:crypto';

const oneShot = typeof crypto.hash === 'function' ? crypto.hash : undefined;

export const sha256Hex = (text: string): string =>
  oneShot ? oneShot('sha256', text) : crypto.createHash('sha256').update(text).digest('hex');

export const sha256 = (text: string): Buffer =>
  oneShot ? oneShot('sha256', text, 'buffer') : crypto.createHash('sha256').update(text).digest();
