// The C2SP tlog-checkpoint note text (c2sp.org/tlog-checkpoint): origin, tree size, base64 root hash, one a line.
import { decodeBase64, NoteError } from './note.js';

export interface CheckpointBody {
  origin: string;
  size: number;
  /** The RFC 6962 root hash. */
  root: Buffer;
}

export const checkpointText = (c: CheckpointBody): string => `${c.origin}\n${c.size}\n${c.root.toString('base64')}\n`;

/** Reads a checkpoint's text; extension lines are allowed (and ignored) as the spec says. */
export function parseCheckpointText(text: string): CheckpointBody {
  const lines = text.split('\n');
  if (lines.length < 4 || lines.at(-1) !== '') throw new NoteError('malformed checkpoint: fewer than three lines, or no final newline');
  const [origin, size, root] = lines as [string, string, string];
  if (lines.slice(0, -1).some((l) => l === '')) throw new NoteError('malformed checkpoint: an empty line');
  if (!/^(0|[1-9][0-9]*)$/.test(size) || !Number.isSafeInteger(Number(size))) {
    throw new NoteError(`malformed checkpoint: the tree size ${JSON.stringify(size)} is not a decimal without leading zeroes`);
  }
  const hash = decodeBase64(root);
  if (hash?.length !== 32) throw new NoteError('malformed checkpoint: the root hash is not base64 of 32 bytes');
  return { origin, size: Number(size), root: hash };
}

/**
 * The log's origin line. A deployment names its log (AUDIT_LOG_ORIGIN, a schema-less URL such as
 * `bank.example/compliance-log`); a log split into partitions would name each `<origin>/<partition>`.
 */
export function checkOrigin(origin: string): string {
  if (origin.length === 0 || /[\s+]/u.test(origin)) {
    throw new Error(
      `the audit log origin must be non-empty, with no space or plus (a schema-less URL such as bank.example/compliance-log), got ${JSON.stringify(origin)}`,
    );
  }
  return origin;
}

/** The origin of a deployment that named none: the host it is reached at, so two deployments rarely share one. */
export const defaultOrigin = (publicBaseUrl: string | undefined): string =>
  `${publicBaseUrl ? new URL(publicBaseUrl).host : 'localhost'}/compliance-audit-log`;
