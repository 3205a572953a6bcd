import type { Kysely } from 'kysely';
import type { BatchReply, BatchRequest } from './batch.js';
import { commitBatch, type InlineProjector } from './commit.js';

/**
 * Where the event store's transactions run. The store may have several batches in flight; a writer commits
 * them one after another, in the order given, and answers each with what it wrote and what other processes
 * wrote before it.
 */
export interface Writer {
  write(request: BatchRequest): Promise<BatchReply>;
  close(): Promise<void>;
}

/**
 * Commits batches strictly one after another. A batch sent while an earlier one is still in flight carries a
 * stale `after`; the position this committer has already reported stands in for it, so no row comes back twice.
 */
export function serialCommitter(
  db: Kysely<any>,
  projector: () => InlineProjector | undefined,
): (request: BatchRequest) => Promise<BatchReply> {
  let reported = 0;
  let previous: Promise<unknown> = Promise.resolve();
  return (request) => {
    const run = previous.then(async () => {
      const reply = await commitBatch(db, projector(), { ...request, after: Math.max(request.after, reported) });
      reported = reply.head;
      return reply;
    });
    previous = run.catch(() => undefined);
    return run;
  };
}

/** Commits on the caller's connection and thread: for in-memory databases, tools, and custom projectors. */
export class InlineWriter implements Writer {
  readonly #commit: (request: BatchRequest) => Promise<BatchReply>;

  constructor(db: Kysely<any>, projector: () => InlineProjector | undefined) {
    this.#commit = serialCommitter(db, projector);
  }

  write(request: BatchRequest): Promise<BatchReply> {
    return this.#commit(request);
  }

  async close(): Promise<void> {}
}
