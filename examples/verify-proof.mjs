#!/usr/bin/env node
// Checks one event's inclusion proof (GET …/proof) with node:crypto alone, no access to the engine or its database:
// the event's stored form gives its chain hash, the hash its leaf, the audit path the root (RFC 9162 2.1.3.2), and the
// root is signed. Usage: node verify-proof.mjs PROOF.json [TRUSTED_PUBLIC_KEY.pem]   (exit 0: verified)
import { createHash, createPublicKey, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';

const [proofFile, keyFile] = process.argv.slice(2);
const read = JSON.parse(readFileSync(proofFile, 'utf8'));
const { event: e, previousHash, leafIndex, auditPath, treeHead: h } = read.data ?? read;
const sha = (...parts) => createHash('sha256').update(Buffer.concat(parts)).digest();
const fail = (why) => {
  console.error(`NOT VERIFIED: ${why}`);
  process.exit(1);
};

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

// 2. Its leaf, walked up the audit path, gives the signed root.
let r = sha(Buffer.from([0]), Buffer.from(JSON.stringify([e.position, e.hash])));
let fn = leafIndex,
  sn = h.treeSize - 1;
for (const hex of auditPath) {
  const p = Buffer.from(hex, 'hex');
  if (sn === 0) fail('the audit path is too long');
  if (fn % 2 === 1 || fn === sn) {
    r = sha(Buffer.from([1]), p, r);
    if (fn % 2 === 0)
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
  } else r = sha(Buffer.from([1]), r, p);
  fn = Math.floor(fn / 2);
  sn = Math.floor(sn / 2);
}
if (sn !== 0 || r.toString('hex') !== h.rootHash) fail(`the audit path leads to ${r.toString('hex')}, not the signed root ${h.rootHash}`);

// 3. The tree head is signed by the key it names, and that is the key the auditor trusts.
const key = createPublicKey(h.publicKey);
const keyId = createHash('sha256')
  .update(key.export({ type: 'spki', format: 'der' }))
  .digest('hex')
  .slice(0, 16);
if (keyId !== h.keyId) fail(`keyId ${h.keyId} is not the id of the key carried (${keyId})`);
const message = Buffer.from(`${h.origin}\n${h.treeSize}\n${h.rootHash}\n${h.timestamp}\n${h.keyId}\n`);
if (!verify(null, message, key, Buffer.from(h.signature, 'base64'))) fail('the tree head signature does not verify');
if (keyFile) {
  const trusted = createPublicKey(readFileSync(keyFile, 'utf8')).export({ type: 'spki', format: 'der' });
  if (!trusted.equals(key.export({ type: 'spki', format: 'der' }))) fail(`signed by key ${keyId}, not by the trusted key`);
} else console.warn(`warning: no trusted key given; the signature is by key ${keyId} as carried in the proof`);
console.log(
  `VERIFIED: event ${e.eventId} (${e.type}) at position ${e.position} is in the log of ${h.treeSize} events signed at ${h.timestamp} by key ${keyId}`,
);
