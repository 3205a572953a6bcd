import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { MIN_SECRET_LENGTH } from '../auth/secrets.js';
import { PRIVATE_FILE } from '../file-modes.js';

/** What a signed URL grants: one method on one key until `expires` (Unix seconds), for at most `max` bytes. */
export interface Grant {
  method: 'PUT' | 'GET';
  key: string;
  expires: number;
  max: number;
}

export const sign = (secret: Buffer, g: Grant): string =>
  createHmac('sha256', secret).update(`${g.method}\n${g.key}\n${g.expires}\n${g.max}`).digest('base64url');

export function signatureMatches(secret: Buffer, grant: Grant, signature: string): boolean {
  const expected = Buffer.from(sign(secret, grant));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

export const SIGNING_KEY_FILE = 'upload-signing.key';

/**
 * The HMAC key of upload URLs. It must outlive restarts, or every URL handed out would die with the process:
 * UPLOAD_SIGNING_SECRET when set (several servers sharing one data set), else a random key generated once into
 * DATA_DIR/upload-signing.key (mode 0600). An in-memory engine gets a key for its lifetime only.
 */
export function loadSigningSecret(dataDir: string, configured?: string): Buffer {
  if (configured !== undefined && configured.length < MIN_SECRET_LENGTH)
    throw new Error(
      `the upload signing secret (UPLOAD_SIGNING_SECRET) must be at least ${MIN_SECRET_LENGTH} characters, got ${configured.length}`,
    );
  if (configured) return createHash('sha256').update(configured).digest();
  if (dataDir === ':memory:') return randomBytes(32);
  const path = join(dataDir, SIGNING_KEY_FILE);
  try {
    return Buffer.from(readFileSync(path, 'utf8').trim(), 'hex');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  // Written to a temporary file and hard-linked into place: link fails if another process won the race, and
  // then its key is the one everybody uses.
  const temp = join(dataDir, `.${SIGNING_KEY_FILE}.${process.pid}.${randomBytes(4).toString('hex')}`);
  const fd = openSync(temp, 'wx', PRIVATE_FILE);
  try {
    writeSync(fd, randomBytes(32).toString('hex'));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(temp);
  }
  const dir = openSync(dataDir, 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
  return Buffer.from(readFileSync(path, 'utf8').trim(), 'hex');
}
