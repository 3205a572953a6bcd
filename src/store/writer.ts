import type { Kysely } from 'kysely';
import type { BatchReply, BatchRequest } from './batch.js';
import { commitBatch, type DeferredReply, type InlineProjector } from './commit.js';

/**
 * Where the event store's transactions run. The store may have several batches in flight; a writer commits
 * them one after another, in the order given, and answers each with what it wrote and what other processes
 * wrote before it.
 */
export interface Writer {
  write(request: BatchRequest): Promise<BatchReply>;
  /** One pass of the deferred read models, between commits (InlineProjector.applyDeferred). */
  projectDeferred(limit: number): Promise<DeferredReply>;
  close(): Promise<void>;
}

const NOTHING_DEFERRED: DeferredReply = { applied: 0, through: 0, done: true };

/**
 * Commits batches strictly one after another, and runs the deferred read models' passes in the same queue, so a
 * pass never holds the write lock while a commit waits for it on another connection of this process. A batch sent
 * while an earlier one is still in flight carries a stale `after`; the position this committer has already
 * reported stands in for it, so no row comes back twice.
 */
export function serialCommitter(db: Kysely<any>, projector: () => InlineProjector | undefined): Pick<Writer, 'write' | 'projectDeferred'> {
  let reported = 0;
  let previous: Promise<unknown> = Promise.resolve();
  const queue = <T>(work: () => Promise<T>): Promise<T> => {
    const run = previous.then(work);
    previous = run.catch(() => undefined);
    return run;
  };
  return {
    write: (request) =>
      queue(async () => {
        const reply = await commitBatch(db, projector(), { ...request, after: Math.max(request.after, reported) });
        reported = reply.head;
        return reply;
      }),
    projectDeferred: (limit) =>
      queue(async () => {
        const p = projector();
        return p ? p.applyDeferred(db, limit) : NOTHING_DEFERRED;
      }),
  };
}

/** Commits on the caller's connection and thread: for in-memory databases, tools, and custom projectors. */
export class InlineWriter implements Writer {
  readonly #serial: Pick<Writer, 'write' | 'projectDeferred'>;

  constructor(db: Kysely<any>, projector: () => InlineProjector | undefined) {
    this.#serial = serialCommitter(db, projector);
  }

  write(request: BatchRequest): Promise<BatchReply> {
    return this.#serial.write(request);
  }

  projectDeferred(limit: number): Promise<DeferredReply> {
    return this.#serial.projectDeferred(limit);
  }

  async close(): Promise<void> {}
}
