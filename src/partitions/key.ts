// Which partition a decision belongs to: a pure function of its request and its business's partition count. Nodes
// lease partitions by it, and the hot read models lead their keys with it (docs/postgres.md "Distribution columns").
import { createHash } from 'node:crypto';

/** The partition count a business has when none was recorded at its set-up. */
export const DEFAULT_PARTITIONS = 64;
/** The most partitions a business may have: one owner each is the aim, and no deployment has thousands of them. */
export const MAX_PARTITIONS = 4096;

/** Whose state a decision reads and writes: its user, else its sending account, else (neither given) itself. */
export interface Subject {
  readonly kind: 'user' | 'account' | 'transaction';
  readonly id: string;
}

/** The parts of an instant request the subject is read from (request-schema.ts: every one but the reference optional). */
export interface SubjectFields {
  readonly transactionData: { readonly reference: string; readonly senderAccount?: string | null };
  readonly anonymizedUserData?: { readonly uniqueId?: string | null } | null;
}

export function decisionSubject(request: SubjectFields): Subject {
  const user = request.anonymizedUserData?.uniqueId;
  if (user) return { kind: 'user', id: user };
  const account = request.transactionData.senderAccount;
  if (account) return { kind: 'account', id: account };
  return { kind: 'transaction', id: request.transactionData.reference };
}

/**
 * The subject's partition, 0 to `count` − 1: the first four bytes of the SHA-256 of `kind`, a NUL and the id (UTF-8),
 * read as an unsigned big-endian integer, modulo `count`. Fixed by this definition, not by a library's hash, so it
 * is the same on every node and version; SHA-256 spreads any set of ids evenly, and the modulo's bias (2³² mod
 * `count` values of 2³²) is below one in a million for every allowed count.
 */
export function partitionOf(subject: Subject, count: number): number {
  if (!isPartitionCount(count)) throw new RangeError(`a partition count is a whole number from 1 to ${MAX_PARTITIONS}, got ${count}`);
  const digest = createHash('sha256').update(`${subject.kind}\u0000${subject.id}`, 'utf8').digest();
  return digest.readUInt32BE(0) % count;
}

export const isPartitionCount = (count: number): boolean => Number.isInteger(count) && count >= 1 && count <= MAX_PARTITIONS;

/**
 * A stored decision's partition, for the read models that key rows by it: its metadata's, set by every engine when it
 * decided (computed once, by the instant path); a decision stored before that is placed by its request under the
 * default count, once, when its rows are written (the read models' rebuild). Read defensively: a read model that
 * throws stops the log's projections, and an event of any age reaches it.
 */
export function storedPartition(metadata: { readonly partition?: number }, request: unknown): number {
  if (metadata.partition !== undefined) return metadata.partition;
  const r = request as Partial<SubjectFields> | null | undefined;
  return partitionOf(
    decisionSubject({ transactionData: { reference: '', ...r?.transactionData }, anonymizedUserData: r?.anonymizedUserData }),
    DEFAULT_PARTITIONS,
  );
}
