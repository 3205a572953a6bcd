// C2SP signed-note (c2sp.org/signed-note): a text ending in a newline, a blank line, then one signature line per key,
// `— <key name> base64(4-byte key ID || signature)`. Keys travel as verifier keys, `<name>+<hex key ID>+base64(type || key)`.
import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

/** Signature types of the signed-note registry this engine speaks: plain Ed25519, and tlog-cosignature's timestamped Ed25519. */
export const ED25519 = 0x01;
export const COSIGNATURE_V1 = 0x04;

const EM_DASH = '\u2014';
/** Verifiers must accept at least 16 signatures; more than this many is refused as malformed. */
const MAX_SIGNATURES = 100;

export class NoteError extends Error {
  override readonly name = 'NoteError';
}

export interface NoteSignature {
  name: string;
  /** The key ID, a big-endian uint32. */
  keyId: number;
  /** The signature bytes after the key ID. */
  signature: Buffer;
  /** The whole line, newline included. */
  line: string;
}

export interface Note {
  /** The signed text, final newline included. */
  text: string;
  signatures: NoteSignature[];
}

/** A key name: non-empty, no Unicode space, no plus. */
const validName = (name: string): boolean => name.length > 0 && !/[\s+]/u.test(name);

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
export function decodeBase64(text: string): Buffer | undefined {
  if (text.length % 4 !== 0 || !BASE64.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64');
  // Buffer.from ignores non-canonical trailing bits: re-encoding must give the same text.
  return bytes.toString('base64') === text ? bytes : undefined;
}

export const hexKeyId = (keyId: number): string => keyId.toString(16).padStart(8, '0');

/** SHA-256(name || 0x0A || type || public key)[:4], big-endian: the key ID the spec recommends and cosignatures require. */
export function keyIdOf(name: string, type: number, publicKey: Buffer): number {
  return createHash('sha256')
    .update(Buffer.concat([Buffer.from(`${name}\n`), Buffer.from([type]), publicKey]))
    .digest()
    .readUInt32BE(0);
}

/** Splits a signed note into its text and signature lines; a malformed note is refused with the reason. */
export function parseNote(message: string): Note {
  const fail = (why: string): never => {
    throw new NoteError(`malformed note: ${why}`);
  };
  for (let i = 0; i < message.length; i++) {
    const code = message.charCodeAt(i);
    if (code < 0x20 && code !== 0x0a) fail('it holds a control character other than newline');
  }
  if (message.includes('\uFFFD')) fail('it is not valid UTF-8');
  const split = message.lastIndexOf('\n\n');
  if (split < 0) fail('no blank line separates the text from the signatures');
  const text = message.slice(0, split + 1);
  const rest = message.slice(split + 2);
  if (!rest.endsWith('\n')) fail('the last signature line does not end in a newline');
  const lines = rest.slice(0, -1).split('\n');
  if (lines.length > MAX_SIGNATURES) fail(`more than ${MAX_SIGNATURES} signatures`);
  const signatures = lines.map((line) => parseSignatureLine(`${line}\n`));
  return { text, signatures };
}

/** One `— name base64` line, newline included. */
export function parseSignatureLine(line: string): NoteSignature {
  const match = /^\u2014 (\S+) (\S+)\n$/u.exec(line);
  if (!match) throw new NoteError(`malformed note: not a signature line: ${JSON.stringify(line.trimEnd())}`);
  const [, name, encoded] = match as unknown as [string, string, string];
  if (!validName(name)) throw new NoteError(`malformed note: bad key name ${JSON.stringify(name)}`);
  const bytes = decodeBase64(encoded);
  if (!bytes || bytes.length < 5) throw new NoteError(`malformed note: the signature of ${name} is not base64 of a key ID and a signature`);
  return { name, keyId: bytes.readUInt32BE(0), signature: bytes.subarray(4), line };
}

export function signatureLine(name: string, keyId: number, signature: Buffer): string {
  const id = Buffer.alloc(4);
  id.writeUInt32BE(keyId);
  return `${EM_DASH} ${name} ${Buffer.concat([id, signature]).toString('base64')}\n`;
}

/** Checks one signature over a note's text. */
export interface NoteVerifier {
  readonly name: string;
  readonly keyId: number;
  readonly type: number;
  readonly publicKey: Buffer;
  /** The verifier key, as the spec writes it. */
  readonly vkey: string;
  verify(text: string, signature: Buffer): boolean;
}

const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex');
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');

export const ed25519PublicKey = (raw: Buffer): KeyObject =>
  createPublicKey({ key: Buffer.concat([SPKI_ED25519, raw]), format: 'der', type: 'spki' });
export const ed25519PrivateKey = (seed: Buffer): KeyObject =>
  createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: 'der', type: 'pkcs8' });
/** The 32 bytes of an Ed25519 public key (RFC 8032), from any Ed25519 key object. */
export const rawPublicKey = (key: KeyObject): Buffer =>
  Buffer.from(createPublicKey(key).export({ format: 'jwk' }).x as string, 'base64url');

/** The message a cosignature/v1 signs: a header, the time, then the checkpoint's text (tlog-cosignature). */
export const cosignedMessage = (text: string, timestamp: bigint): Buffer => Buffer.from(`cosignature/v1\ntime ${timestamp}\n${text}`);

export function verifierOf(name: string, type: number, publicKey: Buffer): NoteVerifier {
  if (!validName(name)) throw new NoteError(`bad key name ${JSON.stringify(name)}: it must be non-empty, with no space or plus`);
  if (type !== ED25519 && type !== COSIGNATURE_V1) throw new NoteError(`unsupported signature type 0x${type.toString(16)}`);
  if (publicKey.length !== 32) throw new NoteError(`an Ed25519 public key is 32 bytes, got ${publicKey.length}`);
  const keyId = keyIdOf(name, type, publicKey);
  const key = ed25519PublicKey(publicKey);
  const vkey = `${name}+${hexKeyId(keyId)}+${Buffer.concat([Buffer.from([type]), publicKey]).toString('base64')}`;
  const check =
    type === ED25519
      ? (text: string, signature: Buffer) => signature.length === 64 && verify(null, Buffer.from(text), key, signature)
      : (text: string, signature: Buffer) =>
          signature.length === 72 && verify(null, cosignedMessage(text, signature.readBigUInt64BE(0)), key, signature.subarray(8));
  return { name, keyId, type, publicKey, vkey, verify: check };
}

/** A verifier key `name+hexid+base64(type || key)`; its key ID must be the one its name, type and key give. */
export function parseVkey(vkey: string): NoteVerifier {
  const parts = vkey.trim().split('+');
  // The base64 part may hold '+' itself.
  if (parts.length < 3) throw new NoteError(`not a verifier key (name+id+key): ${JSON.stringify(vkey)}`);
  const [name, id] = parts as [string, string];
  const material = decodeBase64(parts.slice(2).join('+'));
  if (!/^[0-9a-f]{8}$/.test(id)) throw new NoteError(`the key ID of verifier key ${name} is not 8 lowercase hex digits`);
  if (!material || material.length < 2) throw new NoteError(`the key of verifier key ${name} is not base64`);
  const verifier = verifierOf(name, material[0]!, material.subarray(1));
  if (hexKeyId(verifier.keyId) !== id)
    throw new NoteError(`verifier key ${name}: key ID ${id} is not the one its key gives (${hexKeyId(verifier.keyId)})`);
  return verifier;
}

/**
 * The signatures of `note` by keys among `verifiers` that verify. As the spec requires: signatures of unknown keys are
 * ignored; one by a known key (name and ID both match) that fails makes the whole note rejected.
 */
export function verifiedSignatures(note: Note, verifiers: readonly NoteVerifier[]): { signature: NoteSignature; verifier: NoteVerifier }[] {
  const out: { signature: NoteSignature; verifier: NoteVerifier }[] = [];
  for (const signature of note.signatures) {
    const verifier = verifiers.find((v) => v.name === signature.name && v.keyId === signature.keyId);
    if (!verifier) continue;
    if (!verifier.verify(note.text, signature.signature)) {
      throw new NoteError(`invalid signature for key ${signature.name}+${hexKeyId(signature.keyId)}`);
    }
    if (!out.some((o) => o.verifier === verifier)) out.push({ signature, verifier });
  }
  return out;
}

/** Opens a note: it must carry at least one verified signature of a known key. */
export function openNote(message: string, verifiers: readonly NoteVerifier[]): { note: Note; verified: NoteSignature[] } {
  const note = parseNote(message);
  const verified = verifiedSignatures(note, verifiers).map((v) => v.signature);
  if (verified.length === 0) throw new NoteError('note has no verifiable signatures');
  return { note, verified };
}

/** Signs note texts with an Ed25519 key under a name (signature type 0x01). */
export interface NoteSigner {
  readonly verifier: NoteVerifier;
  /** The signature line over `text`. */
  sign(text: string): string;
}

export function noteSigner(name: string, privateKey: KeyObject): NoteSigner {
  const verifier = verifierOf(name, ED25519, rawPublicKey(privateKey));
  return { verifier, sign: (text) => signatureLine(name, verifier.keyId, sign(null, Buffer.from(text), privateKey)) };
}

/** Cosigns checkpoints (tlog-cosignature, Ed25519, type 0x04): the signature carries the time it was made. */
export interface Cosigner {
  readonly verifier: NoteVerifier;
  sign(text: string, timestamp: bigint): string;
}

export function cosigner(name: string, privateKey: KeyObject): Cosigner {
  const verifier = verifierOf(name, COSIGNATURE_V1, rawPublicKey(privateKey));
  return {
    verifier,
    sign(text, timestamp) {
      const time = Buffer.alloc(8);
      time.writeBigUInt64BE(timestamp);
      const signature = sign(null, cosignedMessage(text, timestamp), privateKey);
      return signatureLine(name, verifier.keyId, Buffer.concat([time, signature]));
    },
  };
}

/** The time a cosignature/v1 states, in POSIX seconds. */
export const cosignatureTime = (signature: NoteSignature): bigint | undefined =>
  signature.signature.length === 72 ? signature.signature.readBigUInt64BE(0) : undefined;
