import type { Kysely } from 'kysely';
import type { BatchReply, BatchRequest } from './batch.js';
import { epochMs } from './trace.js';
import { commitBatch, type DeferredReply, type InlineProjector } from './commit.js';
import type { ControlFence } from './fence.js';
import { readTail } from './reads.js';
import { RecentRows } from './recent-rows.js';
import type { TailRow } from './schema.js';

/**
 * Where the event store's transactions run. The store may have several batches in flight; a writer commits
 * them one after another, in the order given, and answers each with what it wrote and what other processes
 * wrote before it.
 */
export interface Writer {
  write(request: BatchRequest): Promise<BatchReply>;
  /** The writer refuses appends made from stale control state itself (fence.ts), so its store may ask it to. */
  readonly fences?: boolean;
  /** One pass of the deferred read models, between commits (InlineProjector.applyDeferred). */
  projectDeferred(limit: number): Promise<DeferredReply>;
  close(): Promise<void>;
}

const NOTHING_DEFERRED: DeferredReply = { applied: 0, through: 0, done: true };

type Job =
  | { request: BatchRequest; client: number; received: number; resolve(reply: BatchReply): void; reject(error: unknown): void }
  | { deferred: number; resolve(reply: DeferredReply): void; reject(error: unknown): void };

/**
 * Commits batches strictly one after another, and runs the deferred read models' passes in the same queue, so a
 * pass never holds the write lock while a commit waits for it on another connection of this process. Batches that
 * wait for the committer together are committed as one transaction (one fsync): at a moderate rate the store sends
 * a batch per tick, and each commit's fixed cost (its transaction, head read, statements and fsync) was most of
 * what the writer spent per decision. Each batch still gets its own reply, with its own appends' outcomes. A batch
 * sent while an earlier one is still in flight carries a stale `after`; the position this committer has already
 * reported stands in for it, so no row comes back twice.
 *
 * Several stores of one process (the deciding threads', decision-threads.ts) may share the committer, each a
 * `client`: what each has been told is kept apart, and a batch whose commit holds another client's rows before its
 * own is told of those rows too (kept from the commits, RecentRows), so every store sees every position once, in order.
 */
export function serialCommitter(
  db: Kysely<any>,
  projector: () => InlineProjector | undefined,
  fence?: ControlFence,
): Pick<Writer, 'projectDeferred'> & { write(request: BatchRequest, client?: number): Promise<BatchReply> } {
  let reported = 0;
  /** By client: the position it has been told of the log up to. */
  const told = new Map<number, number>();
  /** Kept only once a second client shares the committer: one client is told just what each commit reads. */
  let recent: RecentRows | undefined;
  const waiting: Job[] = [];
  let scheduled = false;
  const commit = async (jobs: Extract<Job, { request: BatchRequest }>[]) => {
    const first = jobs[0]!.request;
    const oneClient = jobs.every((j) => j.client === jobs[0]!.client);
    const merged: BatchRequest = {
      appends: jobs.length === 1 ? first.appends : jobs.flatMap((j) => j.request.appends),
      // The latest: each merged batch's events are recorded no earlier than their caller sent them.
      recordedAt: jobs[jobs.length - 1]!.request.recordedAt,
      // Rows up to what was reported are this committer's own: read again, the fence would take them for others'.
      after: Math.max(oneClient ? first.after : Math.min(...jobs.map((j) => j.request.after)), reported),
      origin: first.origin,
      // The latest: a reader's needs only grow before it relies on them (partition-follow.ts). Clients' needs
      // differ: every row whole, and each client is told its own rows as it needs them (externalRows).
      whole: oneClient ? jobs[jobs.length - 1]!.request.whole : undefined,
      timed: first.timed,
    };
    const started = first.timed ? epochMs() : 0;
    const reply = await commitBatch(db, projector(), merged, fence);
    const committed = first.timed ? epochMs() : 0;
    reported = reply.head;
    if (!oneClient || jobs[0]!.client !== 0) recent ??= new RecentRows();
    if (recent && merged.whole === undefined) recent.read(reply.external);
    recent?.wrote(merged.appends, reply.outcomes);
    const external = await externalRows(jobs, reply, merged.after);
    let next = 0;
    jobs.forEach((job, i) => {
      const count = job.request.appends.length;
      job.resolve({
        external: external[i]!,
        outcomes: reply.outcomes.slice(next, (next += count)),
        head: reply.head,
        ...(i > 0 ? { sharedCommit: true } : {}),
        ...(job.request.timed ? { timing: { received: job.received, started, locked: reply.lockedAt, committed } } : {}),
      });
    });
  };
  /**
   * Each job's rows of others: from what its client was told to the row before its own first (or, writing none, to
   * the last row written before it). One client's batch in one commit is told what the commit read, as it always was.
   */
  const externalRows = async (jobs: Extract<Job, { request: BatchRequest }>[], reply: BatchReply, readAfter: number) => {
    const firstRow = (o: BatchReply['outcomes'][number]) => ('rows' in o && o.rows.length > 0 ? o.rows[0]!.global_position : undefined);
    const lastRow = (o: BatchReply['outcomes'][number]) =>
      'rows' in o && o.rows.length > 0 ? o.rows[o.rows.length - 1]!.global_position : undefined;
    const written = reply.outcomes.map(firstRow).find((p) => p !== undefined);
    let before = written === undefined ? reply.head : written - 1;
    const readUpTo = before;
    const rows: TailRow[][] = [];
    let next = 0;
    for (const job of jobs) {
      const outcomes = reply.outcomes.slice(next, (next += job.request.appends.length));
      const own = outcomes.map(firstRow).find((p) => p !== undefined);
      const upTo = own === undefined ? before : own - 1;
      const from = Math.max(job.request.after, told.get(job.client) ?? 0);
      if (upTo <= from) rows.push([]);
      else if (from === readAfter && upTo === readUpTo) rows.push(reply.external);
      else rows.push(recent?.between(from, upTo, job.request.whole) ?? (await readTail(db, from, upTo, job.request.whole)));
      for (const o of outcomes) before = lastRow(o) ?? before;
      told.set(job.client, Math.max(from, own === undefined ? upTo : before));
    }
    return rows;
  };
  const drain = async () => {
    while (waiting.length > 0) {
      const job = waiting[0]!;
      if ('deferred' in job) {
        waiting.shift();
        const p = projector();
        const started = epochMs();
        await (p ? p.applyDeferred(db, job.deferred) : Promise.resolve(NOTHING_DEFERRED)).then(
          (reply) => job.resolve({ ...reply, ran: { started, ended: epochMs() } }),
          job.reject,
        );
        continue;
      }
      let writes = 1;
      while (writes < waiting.length && 'request' in waiting[writes]!) writes++;
      const jobs = waiting.splice(0, writes) as Extract<Job, { request: BatchRequest }>[];
      await commit(jobs).catch((error: unknown) => {
        for (const j of jobs) j.reject(error);
      });
    }
    scheduled = false;
  };
  const enqueue = (job: Job) => {
    waiting.push(job);
    if (scheduled) return;
    scheduled = true;
    // After the messages already delivered to this thread (each a batch) have been queued: better-sqlite3 is
    // synchronous, so a commit started at once would run to its end before the next message is even read.
    setImmediate(() => void drain());
  };
  return {
    write: (request, client = 0) =>
      new Promise((resolve, reject) => enqueue({ request, client, received: request.timed ? epochMs() : 0, resolve, reject })),
    projectDeferred: (limit) => new Promise((resolve, reject) => enqueue({ deferred: limit, resolve, reject })),
  };
}

/** Commits on the caller's connection and thread: for in-memory databases, tools, and custom projectors. */
export class InlineWriter implements Writer {
  readonly #serial: Pick<Writer, 'write' | 'projectDeferred'>;

  /** `fence`: appends made from stale control state are refused (fence.ts). */
  constructor(db: Kysely<any>, projector: () => InlineProjector | undefined, fence?: ControlFence) {
    this.#serial = serialCommitter(db, projector, fence);
  }

  write(request: BatchRequest): Promise<BatchReply> {
    return this.#serial.write(request);
  }

  projectDeferred(limit: number): Promise<DeferredReply> {
    return this.#serial.projectDeferred(limit);
  }

  async close(): Promise<void> {}
}
