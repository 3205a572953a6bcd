import { ValidationError } from '../errors.js';
import type { ChainReport } from '../store/index.js';
import { compactRangeSizes, consistencyProof, foldRange, verifyConsistency } from './merkle.js';
import { keyIdOf } from './signing-key.js';
import { treeHeadSignatureValid, type Checkpoint } from './tree-head.js';
import type { MerkleTree } from './tree.js';

export interface CheckpointVerdict {
  source: string;
  treeSize: number;
  ok: boolean;
  message: string;
  /** Where the first change to the checkpointed events lies (positions, inclusive), as narrowly as the anchors allow. */
  altered?: { from: number; to: number };
}

export interface AuditReport {
  ok: boolean;
  treeSize: number;
  rootHash: string;
  chain: ChainReport;
  checkpoints: CheckpointVerdict[];
}

const HEX64 = /^[0-9a-f]{64}$/;

/** A checkpoint file as an auditor kept it; every malformed field is named. */
export function parseCheckpoint(text: string, source: string): Checkpoint {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ValidationError(`${source}: not JSON (${(error as Error).message})`, source);
  }
  const c = value as Partial<Checkpoint> | null;
  const fail = (field: string, wanted: string): never => {
    throw new ValidationError(`${source}: ${field} must be ${wanted}`, field);
  };
  if (typeof c !== 'object' || c === null) return fail('the checkpoint', 'a JSON object');
  if (typeof c.origin !== 'string' || c.origin === '') fail('origin', 'the name of the log');
  if (!Number.isSafeInteger(c.treeSize) || c.treeSize! < 0) fail('treeSize', 'a whole number');
  if (typeof c.rootHash !== 'string' || !HEX64.test(c.rootHash)) fail('rootHash', '64 lowercase hex digits');
  if (typeof c.timestamp !== 'string' || Number.isNaN(Date.parse(c.timestamp))) fail('timestamp', 'an ISO 8601 time');
  for (const field of ['keyId', 'publicKey', 'signature'] as const) if (typeof c[field] !== 'string') fail(field, 'a string');
  const sizes = compactRangeSizes(c.treeSize!);
  if (!Array.isArray(c.compactRange) || c.compactRange.length !== sizes.length || !c.compactRange.every((h) => HEX64.test(String(h)))) {
    fail('compactRange', `${sizes.length} hex subtree hashes (one per binary digit of treeSize)`);
  }
  return c as Checkpoint;
}

/** Is the checkpoint signed by the key it names, and whole? Undefined if so, else why not. */
function signatureProblem(c: Checkpoint): string | undefined {
  let keyId: string;
  try {
    keyId = keyIdOf(c.publicKey);
  } catch {
    return 'publicKey is not a public key';
  }
  if (keyId !== c.keyId) return `keyId ${c.keyId} is not the id of the public key it carries (${keyId})`;
  if (!treeHeadSignatureValid(c)) return 'the signature does not verify: the checkpoint was edited or not signed by its key';
  if (!foldRange(c.compactRange.map((h) => Buffer.from(h, 'hex'))).equals(Buffer.from(c.rootHash, 'hex'))) {
    return 'its compact range does not fold to its root hash';
  }
  return undefined;
}

/**
 * Checks that the log, as `tree` holds it now, extends each checkpoint: a consistency proof (RFC 9162 2.1.4) from the
 * checkpoint's size to the tree's. A failure is located between the anchors (the given checkpoints and the signed
 * heads the log published): after the largest one the log still extends, within the first subtree of the failing
 * checkpoint's compact range that differs.
 */
export async function verifyCheckpoints(
  tree: MerkleTree,
  given: readonly { source: string; checkpoint: Checkpoint }[],
  knownKeyIds: ReadonlySet<string>,
  published: readonly Checkpoint[],
): Promise<CheckpointVerdict[]> {
  const size = tree.size;
  const root = size === 0 ? foldRange([]) : await tree.rangeHash(0, size);
  const holds = async (c: Checkpoint) =>
    c.treeSize <= size && (c.treeSize === 0 || (await tree.rangeHash(0, c.treeSize)).toString('hex') === c.rootHash);
  // Heads signed by keys the log does not know still anchor nothing: a forger could make those.
  const anchors = [...given.map((g) => g.checkpoint), ...published].filter(
    (c) => signatureProblem(c) === undefined && knownKeyIds.has(c.keyId),
  );
  const verdicts: CheckpointVerdict[] = [];
  for (const { source, checkpoint: c } of given) {
    const verdict = (ok: boolean, message: string, altered?: CheckpointVerdict['altered']) =>
      verdicts.push({ source, treeSize: c.treeSize, ok, message, ...(altered ? { altered } : {}) });
    const problem = signatureProblem(c);
    if (problem) {
      verdict(false, problem);
      continue;
    }
    // A key missing from the log's record is reported, but after what matters more: an insider who truncated the
    // log may have removed the key's record with it.
    const unknownKey = knownKeyIds.has(c.keyId)
      ? ''
      : `; and it is signed by key ${c.keyId}, which this log does not record as a signing key`;
    if (c.treeSize > size) {
      verdict(
        false,
        `truncated: the log has ${size} events, the checkpoint covers ${c.treeSize}; positions ${size + 1} to ${c.treeSize} are gone`,
        {
          from: size + 1,
          to: c.treeSize,
        },
      );
      continue;
    }
    const proof = await consistencyProof(c.treeSize, size, tree.rangeHash);
    if (verifyConsistency(c.treeSize, size, Buffer.from(c.rootHash, 'hex'), root, proof)) {
      verdict(
        true,
        `the log (${size} events) extends this checkpoint (${c.treeSize} events): consistency proof of ${proof.length} hashes verified`,
      );
      continue;
    }
    const altered = await locate(tree, c, anchors, holds);
    verdict(
      false,
      altered.from === altered.to
        ? `rewritten: the event at position ${altered.from} differs from the one this checkpoint signed${unknownKey}`
        : `rewritten: the first change lies between positions ${altered.from} and ${altered.to}${unknownKey}`,
      altered,
    );
  }
  return verdicts;
}

async function locate(
  tree: MerkleTree,
  failing: Checkpoint,
  anchors: readonly Checkpoint[],
  holds: (c: Checkpoint) => Promise<boolean>,
): Promise<{ from: number; to: number }> {
  let from = 1;
  let to = failing.treeSize;
  for (const anchor of anchors) {
    if (anchor.treeSize === 0 || anchor.treeSize > tree.size) continue;
    if (await holds(anchor)) from = Math.max(from, anchor.treeSize + 1);
    else {
      to = Math.min(to, anchor.treeSize);
      // The first subtree of the anchor's compact range that differs holds the first changed leaf.
      const ranges = compactRangeSizes(anchor.treeSize);
      for (let i = 0; i < ranges.length; i++) {
        const { start, size } = ranges[i]!;
        if ((await tree.rangeHash(start, start + size)).toString('hex') !== anchor.compactRange[i]) {
          from = Math.max(from, start + 1);
          to = Math.min(to, start + size);
          break;
        }
      }
    }
  }
  return { from, to: Math.max(from, to) };
}

export function formatAuditReport(report: AuditReport): string {
  const lines = [`log: ${report.treeSize} events, tree root ${report.rootHash}`];
  lines.push(
    report.chain.ok
      ? `hash chain: intact over ${report.chain.checked} events`
      : `hash chain: BROKEN\n${report.chain.problems.map((p) => `  position ${p.position}: ${p.message}`).join('\n')}`,
  );
  for (const v of report.checkpoints) lines.push(`${v.ok ? 'OK  ' : 'FAIL'} ${v.source} (size ${v.treeSize}): ${v.message}`);
  lines.push(report.ok ? 'verified: the log extends every checkpoint' : 'NOT VERIFIED');
  return lines.join('\n');
}
