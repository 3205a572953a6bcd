import type { Hash } from './merkle.js';
import type { SigningKey } from './signing-key.js';
import { verifySignature } from './signing-key.js';

/** Names the log and the format of what is signed, so a signature over one cannot pass for another. */
export const LOG_ORIGIN = 'compliance-engine audit log v1';

/** A signed tree head (RFC 9162 4.10, in a text form an auditor can check with node:crypto alone). */
export interface SignedTreeHead {
  origin: string;
  /** Events covered: the tree holds the log's positions 1 to treeSize. */
  treeSize: number;
  /** Hex SHA-256 root of the tree. */
  rootHash: string;
  timestamp: string;
  keyId: string;
  /** Ed25519 public key, SPKI PEM. */
  publicKey: string;
  /** Base64 Ed25519 signature over `treeHeadMessage`. */
  signature: string;
}

/** A signed tree head as an auditor keeps it, with the compact range that narrows down where a later log differs. */
export interface Checkpoint extends SignedTreeHead {
  /** Hex roots of the perfect subtrees covering positions 1..treeSize, largest first; they fold to rootHash. */
  compactRange: string[];
}

/** The signed bytes: one field a line, newline-terminated. */
export const treeHeadMessage = (head: Pick<SignedTreeHead, 'origin' | 'treeSize' | 'rootHash' | 'timestamp' | 'keyId'>): Buffer =>
  Buffer.from(`${head.origin}\n${head.treeSize}\n${head.rootHash}\n${head.timestamp}\n${head.keyId}\n`);

export function signTreeHead(key: SigningKey, treeSize: number, root: Hash, timestamp: string): SignedTreeHead {
  const unsigned = { origin: LOG_ORIGIN, treeSize, rootHash: root.toString('hex'), timestamp, keyId: key.keyId };
  return { ...unsigned, publicKey: key.publicKey, signature: key.sign(treeHeadMessage(unsigned)).toString('base64') };
}

export const treeHeadSignatureValid = (head: SignedTreeHead): boolean =>
  verifySignature(head.publicKey, treeHeadMessage(head), Buffer.from(head.signature, 'base64'));
