import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import type { Secrets } from '../store/index.js';
import { noteSigner, type NoteSigner } from './note.js';

/**
 * The Ed25519 key that signs tree heads. On SQLite it never enters the database: an insider who can rewrite the log
 * cannot sign. On PostgreSQL without AUDIT_SIGNING_KEY it is shared through the database (docs/postgres.md).
 */
export interface SigningKey {
  readonly keyId: string;
  /** SubjectPublicKeyInfo, PEM: what an auditor keeps to check signatures. */
  readonly publicKey: string;
  /** Where it came from, for messages: the environment variable, the file, the table, or memory. */
  readonly source: string;
  sign(message: Buffer): Buffer;
  /** The same key signing C2SP notes as the log `origin` (its key name), with its verifier key. */
  noteSigner(origin: string): NoteSigner;
}

export const KEY_FILE = 'audit-signing-key.pem';
export const KEY_ENV = 'AUDIT_SIGNING_KEY';
export const KEY_FILE_ENV = 'AUDIT_SIGNING_KEY_FILE';

/** The key file an operator keeps outside DATA_DIR; one that others may read is refused, as the generated one is. */
async function readKeyFile(path: string): Promise<string> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(path);
  } catch (error) {
    throw new Error(
      `${KEY_FILE_ENV}: ${path} cannot be read (${(error as NodeJS.ErrnoException).code}); make one with: openssl genpkey -algorithm ed25519 -out ${path}`,
    );
  }
  if ((info.mode & 0o077) !== 0)
    throw new Error(`${KEY_FILE_ENV}: ${path} may be read by others (mode ${(info.mode & 0o777).toString(8)}): chmod 600 it`);
  return readFile(path, 'utf8');
}

/** A key's id: the first 16 hex digits of the SHA-256 of its public key (DER), as an auditor can recompute. */
export const keyIdOf = (publicKeyPem: string): string =>
  createHash('sha256')
    .update(createPublicKey(publicKeyPem).export({ type: 'spki', format: 'der' }))
    .digest('hex')
    .slice(0, 16);

export function signingKeyFrom(privateKey: KeyObject, source: string): SigningKey {
  if (privateKey.asymmetricKeyType !== 'ed25519')
    throw new Error(`${source}: the audit signing key must be Ed25519, got ${privateKey.asymmetricKeyType}`);
  const publicKey = createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString();
  return {
    keyId: keyIdOf(publicKey),
    publicKey,
    source,
    sign: (message) => sign(null, message, privateKey),
    noteSigner: (origin) => noteSigner(origin, privateKey),
  };
}

/** A private key as PEM, or as the base64 of its PKCS#8 DER (one line, for an environment variable). */
export function parsePrivateKey(text: string, source: string): KeyObject {
  const trimmed = text.trim();
  try {
    return trimmed.startsWith('-----BEGIN')
      ? createPrivateKey(trimmed)
      : createPrivateKey({ key: Buffer.from(trimmed, 'base64'), format: 'der', type: 'pkcs8' });
  } catch (error) {
    throw new Error(`${source} is not an Ed25519 private key (PEM, or base64 of PKCS#8 DER): ${(error as Error).message}`);
  }
}

export const newPrivateKeyPem = (): string => generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

/**
 * The signing key: AUDIT_SIGNING_KEY if set; otherwise the one the store keeps for every process of the log,
 * generated on first use (DATA_DIR/audit-signing-key.pem, mode 0600, on SQLite; a row of store_secrets on
 * PostgreSQL, so that every node signs with one key). An in-memory engine gets a key of its own.
 */
export async function loadSigningKey(secrets: Secrets, env: string | undefined, file?: string): Promise<SigningKey> {
  if (env) return signingKeyFrom(parsePrivateKey(env, KEY_ENV), KEY_ENV);
  if (file) return signingKeyFrom(parsePrivateKey(await readKeyFile(file), file), file);
  const { value, source } = await secrets.get(KEY_FILE, newPrivateKeyPem);
  return signingKeyFrom(parsePrivateKey(value, source), source);
}

/** Checks an Ed25519 signature with a public key in PEM. */
export function verifySignature(publicKeyPem: string, message: Buffer, signature: Buffer): boolean {
  try {
    return verify(null, message, createPublicKey(publicKeyPem), signature);
  } catch {
    return false;
  }
}
