import type { Kysely } from 'kysely';
import type { BatchReply, BatchRequest } from './batch.js';
import { commitBatch, type InlineProjector } from './commit.js';

/**
 * Where the event store's transactions run. The store hands a writer one batch at a time and waits for it
 * to be durable; the writer answers with what it wrote and what other processes wrote before it.
 */
export interface Writer {
  write(request: BatchRequest): Promise<BatchReply>;
  close(): Promise<void>;
}

/** Commits on the caller's connection and thread: for in-memory databases, tools, and custom projectors. */
export class InlineWriter implements Writer {
  constructor(
    private readonly db: Kysely<any>,
    private readonly projector: () => InlineProjector | undefined,
  ) {}

  write(request: BatchRequest): Promise<BatchReply> {
    return commitBatch(this.db, this.projector(), request);
  }

  async close(): Promise<void> {}
}
