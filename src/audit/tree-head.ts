import { checkpointText } from './checkpoint-text.js';
import type { Hash } from './merkle.js';
import type { SigningKey } from './signing-key.js';
import { verifySignature } from './signing-key.js';

/**
 * A signed tree head. `note` is the standard form: a C2SP tlog-checkpoint in a C2SP signed note, signed by the log's
 * key under its origin and, once witnesses cosigned it, carrying their cosignature lines. The other fields are a JSON
 * view of the same head with a signature of their own (over `treeHeadMessage`), which checkpoints kept as JSON check.
 */
export interface SignedTreeHead {
  /** The log's name: the checkpoint's origin line. */
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
  /** The signed checkpoint note (c2sp.org/tlog-checkpoint, c2sp.org/signed-note), with any cosignatures. */
  note: string;
}

/** A signed tree head as an auditor keeps it, with the compact range that narrows down where a later log differs. */
export interface Checkpoint extends SignedTreeHead {
  /** Hex roots of the perfect subtrees covering positions 1..treeSize, largest first; they fold to rootHash. */
  compactRange: string[];
}

/** The signed bytes: one field a line, newline-terminated. */
export const treeHeadMessage = (head: Pick<SignedTreeHead, 'origin' | 'treeSize' | 'rootHash' | 'timestamp' | 'keyId'>): Buffer =>
  Buffer.from(`${head.origin}\n${head.treeSize}\n${head.rootHash}\n${head.timestamp}\n${head.keyId}\n`);

export function signTreeHead(key: SigningKey, origin: string, treeSize: number, root: Hash, timestamp: string): SignedTreeHead {
  const unsigned = { origin, treeSize, rootHash: root.toString('hex'), timestamp, keyId: key.keyId };
  const text = checkpointText({ origin, size: treeSize, root });
  return {
    ...unsigned,
    publicKey: key.publicKey,
    signature: key.sign(treeHeadMessage(unsigned)).toString('base64'),
    note: `${text}\n${key.noteSigner(origin).sign(text)}`,
  };
}

export const treeHeadSignatureValid = (head: SignedTreeHead): boolean =>
  verifySignature(head.publicKey, treeHeadMessage(head), Buffer.from(head.signature, 'base64'));
