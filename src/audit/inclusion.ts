import { sha256Hex } from '../digest.js';
import { ConflictError } from '../errors.js';
import { GENESIS_HASH } from '../store/hash.js';
import type { EventStore } from '../store/index.js';
import { decodeNumbered, numberedWith } from '../store/numbered-keys.js';
import { leafOf } from './leaf.js';
import { inclusionPath, verifyInclusion } from './merkle.js';
import type { SignedTreeHead } from './tree-head.js';
import type { MerkleTree } from './tree.js';

/** An event exactly as the log stores it: data and metadata as written (before any upcasting), and its chain hash. */
export interface StoredForm {
  position: number;
  eventId: string;
  streamId: string;
  streamVersion: number;
  type: string;
  schemaVersion: number;
  data: unknown;
  metadata: unknown;
  recordedAt: string;
  hash: string;
}

/**
 * The event's data for a person to read: the stored data itself, or, when it is stored with its keys numbered
 * (store/numbered-keys.ts), its decoding with the key table, which is handed over too. The stored data begins with
 * the table's hash, so the table is the one the signed log commits to; a verifier decodes the data with it and
 * compares.
 */
export interface ReadableForm {
  data: unknown;
  keyTable?: { id: string; keys: string[] };
}

export function readableOf(data: unknown): ReadableForm {
  const table = numberedWith(data);
  return table ? { data: decodeNumbered(data as unknown[]), keyTable: { id: table.id, keys: [...table.keys] } } : { data };
}

/**
 * Everything an outsider needs to check that one event is in the log the engine signed: the event as stored, the
 * chain hash before it (the event's own hash is SHA-256 of it followed by the stored row), the audit path from the
 * event's leaf to the root, and the signed tree head; and the event's data in readable form. examples/verify-proof.mjs
 * checks it with node:crypto alone.
 */
export interface InclusionProof {
  event: StoredForm;
  readable: ReadableForm;
  previousHash: string;
  leafIndex: number;
  auditPath: string[];
  treeHead: SignedTreeHead;
}

/** The stored row as the hash chain covers it (see store/hash.ts); stored texts are JSON.stringify's, so this round-trips. */
export const chainHashOf = (previousHash: string, e: StoredForm): string =>
  sha256Hex(
    previousHash +
      JSON.stringify([
        e.position,
        e.eventId,
        e.streamId,
        e.streamVersion,
        e.type,
        e.schemaVersion,
        JSON.stringify(e.data),
        JSON.stringify(e.metadata),
        e.recordedAt,
      ]),
  );

/** The log no longer matches what was hashed or signed: an integrity failure, reported with where it is (409). */
export class ProofError extends ConflictError {
  override readonly name = 'ProofError';
}

/**
 * The inclusion proof of the event at `position` against `head` (a head of `tree` at its current size). `stored`
 * reads the log without upcasters, so the event is as written. The proof is checked before it is handed out: an
 * event altered in the database since it was hashed into the tree fails here, with the reason.
 */
export async function proveInclusion(
  stored: EventStore,
  tree: MerkleTree,
  head: SignedTreeHead,
  position: number,
): Promise<InclusionProof> {
  if (position > head.treeSize) throw new ProofError(`position ${position} is not yet in the tree (size ${head.treeSize})`);
  const rows = await stored.readAll({ after: Math.max(position - 2, 0), limit: position === 1 ? 1 : 2 });
  const row = rows[rows.length - 1];
  if (!row || row.position !== position) throw new ProofError(`the log has no event at position ${position}`);
  const previousHash = position === 1 ? GENESIS_HASH : rows[0]!.hash;
  const event: StoredForm = {
    position: row.position,
    eventId: row.eventId,
    streamId: row.streamId,
    streamVersion: row.streamVersion,
    type: row.type,
    schemaVersion: row.schemaVersion,
    data: row.data,
    metadata: row.metadata,
    recordedAt: row.recordedAt,
    hash: row.hash,
  };
  if (chainHashOf(previousHash, event) !== event.hash) {
    throw new ProofError(`the event at position ${position} does not match its chain hash: it was altered in the database`);
  }
  const path = await inclusionPath(position - 1, 0, head.treeSize, tree.rangeHash);
  if (!verifyInclusion(position - 1, head.treeSize, leafOf(position, event.hash), path, Buffer.from(head.rootHash, 'hex'))) {
    throw new ProofError(`the event at position ${position} is not the one the signed tree holds: the log was altered`);
  }
  return {
    event,
    readable: readableOf(event.data),
    previousHash,
    leafIndex: position - 1,
    auditPath: path.map((h) => h.toString('hex')),
    treeHead: head,
  };
}
