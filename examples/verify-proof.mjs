#!/usr/bin/env node
// Checks the audit log's answers with node:crypto alone, no access to the engine or its database:
//  - an inclusion proof (GET …/proof): the event's stored form gives its chain hash, the hash its leaf, the audit path
//    the root (RFC 9162 2.1.3.2), and that root is the one the checkpoint states; its readable form is the stored data,
//    or the stored data decoded with the key table whose hash the stored data begins with;
//  - a consistency proof (GET /api/v1/audit/consistency, with --since the checkpoint kept from an earlier visit): the
//    new checkpoint's tree extends the kept one (RFC 9162 2.1.4.2);
//  - a checkpoint (GET /api/v1/audit/checkpoint).
// In each case the checkpoint (a C2SP tlog-checkpoint in a signed note) must be signed by the trusted log key and
// cosigned by at least QUORUM of the trusted witnesses (C2SP tlog-cosignature, cosignature/v1).
// Usage: node verify-proof.mjs ANSWER.json [TRUSTED_KEY] [--witness VKEY]… [--quorum N] [--since KEPT.json]
//   TRUSTED_KEY: a file holding what `audit public-key` prints, the log's verifier key, or its public key in PEM.
//   Exit 0: verified; 1: not verified (the reason on stderr).
import { createHash, createPublicKey, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: { witness: { type: 'string', multiple: true, default: [] }, quorum: { type: 'string' }, since: { type: 'string' } },
});
const [answerFile, keyFile] = positionals;
const fail = (why) => {
  console.error(`NOT VERIFIED: ${why}`);
  process.exit(1);
};
const sha = (...parts) => createHash('sha256').update(Buffer.concat(parts)).digest();
const readAnswer = (file) => {
  const json = JSON.parse(readFileSync(file, 'utf8'));
  return json.data ?? json;
};

// Signed notes (c2sp.org/signed-note). A verifier key is name+hex(key ID)+base64(type || Ed25519 key).
const keyIdOf = (name, type, raw) => sha(Buffer.from(`${name}\n`), Buffer.from([type]), raw).readUInt32BE(0);
function verifierOf(name, type, raw) {
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
  return { name, type, id: keyIdOf(name, type, raw), key };
}
function parseVkey(vkey) {
  const [name, id, ...rest] = vkey.trim().split('+');
  const material = Buffer.from(rest.join('+'), 'base64');
  const v = verifierOf(name, material[0], material.subarray(1));
  if (material.length !== 33 || v.id.toString(16).padStart(8, '0') !== id) fail(`${vkey} is not a valid Ed25519 verifier key`);
  return v;
}
// The note's signatures by `verifiers` that verify; one by a known key that fails rejects the note (as the spec says).
function verifiedBy(note, verifiers) {
  const split = note.lastIndexOf('\n\n');
  if (split < 0 || !note.endsWith('\n')) fail('the checkpoint is not a signed note');
  const text = note.slice(0, split + 1);
  const found = new Set();
  for (const line of note.slice(split + 2, -1).split('\n')) {
    const [, name, b64] = /^\u2014 (\S+) (\S+)$/u.exec(line) ?? fail(`not a signature line: ${line}`);
    const sig = Buffer.from(b64, 'base64');
    const v = verifiers.find((k) => k.name === name && k.id === sig.readUInt32BE(0));
    if (!v) continue;
    const ok =
      v.type === 0x01
        ? verify(null, Buffer.from(text), v.key, sig.subarray(4))
        : verify(null, Buffer.from(`cosignature/v1\ntime ${sig.readBigUInt64BE(4)}\n${text}`), v.key, sig.subarray(12));
    if (!ok) fail(`the signature of ${name} on the checkpoint does not verify`);
    found.add(v);
  }
  return { text, signers: [...found] };
}

// The trusted log key: `audit public-key`'s JSON, a verifier key, or a PEM public key (then named by the checkpoint's origin).
function logVerifier(origin) {
  if (!keyFile) return undefined;
  const text = readFileSync(keyFile, 'utf8').trim();
  if (text.startsWith('{')) return parseVkey(JSON.parse(text).current.vkey);
  if (!text.startsWith('-----BEGIN')) return parseVkey(text);
  return verifierOf(origin, 0x01, Buffer.from(createPublicKey(text).export({ format: 'jwk' }).x, 'base64url'));
}
const witnesses = opts.witness.map(parseVkey);
const quorum = opts.quorum === undefined ? witnesses.length : Number(opts.quorum);
if (!(Number.isInteger(quorum) && quorum >= 0 && quorum <= witnesses.length)) fail(`--quorum must be from 0 to ${witnesses.length}`);

/** Checks a checkpoint note: signed by the log, cosigned by the quorum; answers its origin, size and root. */
function checkCheckpoint(note, what) {
  const [origin, size, root] = note.split('\n');
  const log = logVerifier(origin);
  if (log) {
    if (verifiedBy(note, [log]).signers.length === 0) fail(`${what} is not signed by the trusted log key (${log.name})`);
  } else console.warn(`warning: no trusted log key given; ${what}'s signature is not checked`);
  const cosigners = verifiedBy(note, witnesses).signers.filter((v) => v.type === 0x04);
  if (cosigners.length < quorum) fail(`${what} has ${cosigners.length} of the ${quorum} witness cosignatures required`);
  if (witnesses.length === 0) console.warn('warning: no witnesses given; nothing shows the log showed others the same history');
  return { origin, size: Number(size), root: Buffer.from(root, 'base64'), cosigners };
}

// RFC 9162 2.1.3.2 (inclusion) and 2.1.4.2 (consistency), over hex hashes.
const node = (l, r) => sha(Buffer.from([1]), l, r);
function rootFromPath(index, size, leaf, path) {
  let [fn, sn, r] = [index, size - 1, leaf];
  for (const p of path) {
    if (sn === 0) fail('the audit path is too long');
    if (fn % 2 === 1 || fn === sn) {
      r = node(p, r);
      if (fn % 2 === 0) while (fn % 2 === 0 && fn !== 0) [fn, sn] = [fn >> 1, sn >> 1];
    } else r = node(r, p);
    [fn, sn] = [fn >> 1, sn >> 1];
  }
  return sn === 0 ? r : undefined;
}
function consistent(size1, size2, root1, root2, proof) {
  if (size1 === size2) return proof.length === 0 && root1.equals(root2);
  if (size1 === 0) return proof.length === 0;
  const path = (size1 & (size1 - 1)) === 0 ? [root1, ...proof] : proof;
  if (path.length === 0 || size1 > size2) return false;
  let [fn, sn] = [size1 - 1, size2 - 1];
  while (fn % 2 === 1) [fn, sn] = [fn >> 1, sn >> 1];
  let [fr, sr] = [path[0], path[0]];
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      [fr, sr] = [node(c, fr), node(c, sr)];
      if (fn % 2 === 0) while (fn % 2 === 0 && fn !== 0) [fn, sn] = [fn >> 1, sn >> 1];
    } else sr = node(sr, c);
    [fn, sn] = [fn >> 1, sn >> 1];
  }
  return sn === 0 && fr.equals(root1) && sr.equals(root2);
}
const hashes = (hex) => hex.map((h) => Buffer.from(h, 'hex'));

// Data stored with its keys numbered: [table id, key, value, …], an object at every depth as [key, value, …] (a key
// as its index in the table, or as text), an array as [null, item, …]. The id is base64url of the first 16 bytes of
// SHA-256 of the table's JSON text.
function decodeValue(keys, stored) {
  if (!Array.isArray(stored)) return stored;
  if (stored[0] === null) return stored.slice(1).map((item) => decodeValue(keys, item));
  return decodeObject(keys, stored, 0);
}
function decodeObject(keys, stored, from) {
  const object = {};
  for (let i = from; i < stored.length; i += 2) {
    const key = typeof stored[i] === 'number' ? keys[stored[i]] : stored[i];
    if (typeof key !== 'string') fail(`the stored data refers to key ${stored[i]}, which the key table does not hold`);
    Object.defineProperty(object, key, { value: decodeValue(keys, stored[i + 1]), enumerable: true, writable: true, configurable: true });
  }
  return object;
}
/** The key table's id when `readable` is the decoding of `data` with it, '' when it is `data` itself; else fails. */
function checkReadable(data, readable) {
  let shown = data;
  const table = readable.keyTable;
  if (table) {
    const id = createHash('sha256').update(JSON.stringify(table.keys)).digest().subarray(0, 16).toString('base64url');
    if (id !== table.id) fail(`the key table's hash is ${id}, not the id it is given (${table.id})`);
    if (!Array.isArray(data) || data[0] !== id) fail(`the stored data does not name key table ${id}`);
    shown = decodeObject(table.keys, data, 1);
  }
  if (JSON.stringify(shown) !== JSON.stringify(readable.data)) {
    fail(`the readable form is not the stored data${table ? ` decoded with key table ${table.id}` : ''}`);
  }
  return table ? table.id : '';
}
const by = (c) => (c.cosigners.length ? `, cosigned by ${c.cosigners.map((v) => v.name).join(', ')}` : '');

const answer = readAnswer(answerFile);
if (answer.event) {
  const { event: e, previousHash, leafIndex, auditPath, treeHead: h } = answer;
  // 1. The event's chain hash covers its stored row and the hash before it.
  const row = [
    e.position,
    e.eventId,
    e.streamId,
    e.streamVersion,
    e.type,
    e.schemaVersion,
    JSON.stringify(e.data),
    JSON.stringify(e.metadata),
    e.recordedAt,
  ];
  const chain = createHash('sha256')
    .update(previousHash + JSON.stringify(row))
    .digest('hex');
  if (chain !== e.hash) fail(`the event's content does not match its hash (${chain} != ${e.hash})`);
  if (leafIndex !== e.position - 1) fail(`leaf ${leafIndex} is not position ${e.position}`);
  // 2. What it shows a person is what is stored.
  const table = answer.readable ? checkReadable(e.data, answer.readable) : undefined;
  // 3. Its leaf, walked up the audit path, gives the checkpoint's root; 4. the checkpoint is signed and cosigned.
  const leaf = sha(Buffer.from([0]), Buffer.from(JSON.stringify([e.position, e.hash])));
  const c = checkCheckpoint(h.note, 'the checkpoint');
  const root = rootFromPath(leafIndex, c.size, leaf, hashes(auditPath));
  if (!root?.equals(c.root)) fail(`the audit path leads to ${root?.toString('hex')}, not the checkpoint's root ${c.root.toString('hex')}`);
  if (table === undefined) console.warn('warning: the proof has no readable form; read the stored data as it is');
  else console.log(`readable form: the stored data${table ? `, decoded with key table ${table}` : ''}`);
  console.log(`VERIFIED: event ${e.eventId} (${e.type}) at position ${e.position} is in ${c.origin} of ${c.size} events${by(c)}`);
} else if (answer.proof) {
  // The kept checkpoint is checked as it was when kept: signed by the log (its cosignatures were checked then).
  if (!opts.since) fail('a consistency proof is checked against the checkpoint you kept: pass --since KEPT.json');
  const keptNote = readAnswer(opts.since).note ?? readAnswer(opts.since).checkpoint?.note;
  const kept = checkCheckpoint(keptNote, 'the kept checkpoint');
  const c = checkCheckpoint(answer.checkpoint.note, 'the new checkpoint');
  if (kept.origin !== c.origin) fail(`the kept checkpoint is of ${kept.origin}, the new one of ${c.origin}`);
  if (answer.fromSize !== kept.size) fail(`the proof starts at ${answer.fromSize} events, the kept checkpoint has ${kept.size}`);
  if (!consistent(kept.size, c.size, kept.root, c.root, hashes(answer.proof))) {
    fail(`the log of ${c.size} events does not extend the kept checkpoint of ${kept.size} events: its history was rewritten`);
  }
  console.log(`VERIFIED: ${c.origin} of ${c.size} events extends the kept checkpoint of ${kept.size} events${by(c)}`);
} else if (answer.note) {
  const c = checkCheckpoint(answer.note, 'the checkpoint');
  console.log(`VERIFIED: checkpoint of ${c.origin} at ${c.size} events${by(c)}`);
} else fail(`${answerFile} is neither an inclusion proof, a consistency proof nor a checkpoint`);
