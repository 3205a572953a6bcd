// A bench's view of the append path (EventStore.trace): each batch's and deferred page's timestamps, in epoch
// milliseconds so that the main thread's and the writer thread's compare. Nothing here runs unless a trace is set.
import type { BatchReply, BatchRequest, EncodedAppend } from './batch.js';
import type { DeferredReply } from './commit.js';

/** Epoch milliseconds with sub-millisecond precision: comparable between this process's threads. */
export const epochMs = (): number => performance.timeOrigin + performance.now();

/** Where a batch's commit spent its time in the writer (epoch ms, epochMs): reported when the batch asked (`timed`). */
export interface WriterTiming {
  /** When the writer thread took the batch off its port. */
  received: number;
  /** When its transaction began: later than `received` by the commits and deferred pages queued before it. */
  started: number;
  /**
   * When its BEGIN (with the log's lock on PostgreSQL, `begin immediate` on SQLite) returned: from here to
   * `committed` this node held the log's write lock, so no other append anywhere could commit. Undefined when the
   * transaction wrote nothing (a bare catch-up takes no lock).
   */
  locked: number | undefined;
  /** When its COMMIT (and fsync) returned. */
  committed: number;
}

/** One batch's path, for a trace (EventStore.trace); main-thread times are epoch ms too. */
export interface BatchTrace {
  /** Per append, its first write's stream and when it was queued. */
  appends: { streamId: string; queuedAt: number }[];
  sentAt: number;
  /** Batches in flight once this one was sent, itself included. */
  inFlight: number;
  writer: WriterTiming | undefined;
  /** When the writer's reply reached this thread, and when this batch's settling (subscribers included) began and ended. */
  repliedAt: number;
  settleStart: number;
  settleEnd: number;
  /** Committed in the transaction of the batch before it. */
  sharedCommit: boolean;
}

/** One page of the deferred read models: sent and answered on the main thread, run in the writer. */
export interface PageTrace {
  sentAt: number;
  repliedAt: number;
  ran: { started: number; ended: number } | undefined;
  applied: number;
}

/** What a trace is told: off the decision path unless set. */
export interface StoreTrace {
  batch(trace: BatchTrace): void;
  page(trace: PageTrace): void;
}

/** A batch's trace as it is sent; marks the request `timed` so that the writer reports its timestamps. */
export function startBatchTrace(
  appends: readonly { append: EncodedAppend; enqueuedAt: number }[],
  request: BatchRequest,
  inFlight: number,
): {
  replied(reply: Promise<unknown>): void;
  settling(): (to: StoreTrace | undefined, answer: BatchReply | { failure: unknown }) => void;
} {
  request.timed = true;
  const trace: BatchTrace = {
    appends: appends.map((p) => ({ streamId: p.append.writes[0]?.streamId ?? '', queuedAt: performance.timeOrigin + p.enqueuedAt })),
    sentAt: epochMs(),
    inFlight,
    writer: undefined,
    repliedAt: 0,
    settleStart: 0,
    settleEnd: 0,
    sharedCommit: false,
  };
  return {
    replied: (reply) => void reply.then(() => (trace.repliedAt = epochMs())),
    settling: () => {
      trace.settleStart = epochMs();
      return (to, answer) => {
        trace.settleEnd = epochMs();
        if (!('failure' in answer)) {
          trace.writer = answer.timing;
          trace.sharedCommit = answer.sharedCommit === true;
        }
        to?.batch(trace);
      };
    },
  };
}

/** Runs a deferred page, and traces it when a trace is set. */
export async function tracedPage(to: StoreTrace | undefined, run: () => Promise<DeferredReply>): Promise<DeferredReply> {
  if (!to) return run();
  const sentAt = epochMs();
  const reply = await run();
  to.page({ sentAt, repliedAt: epochMs(), ran: reply.ran, applied: reply.applied });
  return reply;
}
