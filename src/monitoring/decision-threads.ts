// DECISION_THREADS: instant decisions made in worker threads, each deciding its share of every business's
// partitions (thread-share.ts) from a state of its own, so that every core decides. The engine's thread validates
// a request, finds its partition's thread and hands it over; the answer comes back as the same Decision.
import type { Worker } from 'node:worker_threads';
import type { Logger } from '../logger.js';
import { PartitionCounts } from '../partitions/index.js';
import type { EventStore, ThreadWriter } from '../store/index.js';
import { decodeError } from '../store/wire-errors.js';
import { startThread, threadEntry } from '../threads.js';
import type { DecidingThreadData, FromDeciding, ToDeciding } from './deciding-thread.js';
import type { Decision } from './events.js';
import type { Actor, DecisionObserver } from './pipeline.js';
import type { InstantRequest } from './request-schema.js';
import { decisionPartition, HOLDS_NO_PARTITION, MAX_DECISION_THREADS, threadOfPartition } from './thread-share.js';
import type { PartitionHolding } from './partition-follow.js';
import type { MonitoringState } from './state.js';
import { HistoryStore, VelocityStore } from '../rules/index.js';

/** Where decisions are made when not on the engine's thread: MonitoringService.decideIn. */
export interface DecisionRouter {
  decide(actor: Actor, request: InstantRequest): Promise<Decision>;
  reload(): Promise<unknown>;
  close(): Promise<void>;
}

/** What every deciding thread is started with; each gets its index, its writer port and the counts besides. */
export type DecisionThreadsOptions = Omit<DecidingThreadData, 'index' | 'threads' | 'writer' | 'counts' | 'logLevel'> & {
  store: EventStore;
  writer: ThreadWriter;
  logger: Logger;
  observer?: DecisionObserver;
};

/**
 * Why the engine cannot decide in `threads` threads with these options, if it cannot: each thread opens the log's
 * SQLite file and appends through the one writer thread, and nothing of the engine's thread (a clock, a function)
 * reaches it.
 */
export function decisionThreadsRefusal(
  threads: number,
  o: { dataDir: string; databaseUrl?: string; writerThread?: boolean; ipCountry?: unknown; clock?: unknown },
): string | undefined {
  if (!Number.isInteger(threads) || threads < 1 || threads > MAX_DECISION_THREADS)
    return `decisionThreads must be a whole number from 1 to ${MAX_DECISION_THREADS}, got ${threads}`;
  if (threads === 1) return undefined;
  const why = o.databaseUrl
    ? 'runs on a SQLite file only: on PostgreSQL run more nodes (docs/postgres.md)'
    : o.dataDir === ':memory:'
      ? 'needs a SQLite file: an in-memory database cannot be shared between threads'
      : o.writerThread === false
        ? 'needs the writer thread (writerThread: false commits on this thread alone)'
        : o.ipCountry
          ? 'cannot call ipCountry, a function of this thread, from the deciding threads'
          : o.clock
            ? 'decides by the system clock: a given clock cannot reach the deciding threads'
            : undefined;
  return why && `decisionThreads ${threads} ${why}`;
}

const entry = threadEntry(import.meta.url, 'deciding-thread');
const PINO_LEVELS: Record<number, 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal'> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
};

/** A thread's line, written again by the engine's logger with the thread's fields. */
function relay(logger: Logger, line: string, index: number): void {
  const { level, msg, time: _t, pid: _p, hostname: _h, service: _s, ...fields } = JSON.parse(line) as Record<string, unknown>;
  logger[PINO_LEVELS[level as number] ?? 'info']({ ...fields, decidingThread: index }, msg as string);
}

class DecidingThread {
  readonly #waiting = new Map<number, { resolve(value: any): void; reject(error: unknown): void }>();
  #nextId = 0;
  #stopped: Error | undefined;

  constructor(
    readonly worker: Worker,
    index: number,
    logger: Logger,
    observer: DecisionObserver | undefined,
    /** The log position up to which the threads' answers' decisions are committed. */
    answered: { upTo: number },
  ) {
    worker.on('message', (message: FromDeciding) => {
      if ('log' in message) return relay(logger, message.log, index);
      if (!('id' in message)) return;
      const waiting = this.#waiting.get(message.id);
      this.#waiting.delete(message.id);
      if (this.#waiting.size === 0) worker.unref();
      if ('decided' in message) for (const result of message.decided) observer?.decided(result);
      if ('at' in message && message.at > answered.upTo) answered.upTo = message.at;
      if ('failure' in message) waiting?.reject(decodeError(message.failure));
      else waiting?.resolve('decision' in message ? message.decision : message.reloaded);
    });
    const stop = (error: Error) => {
      this.#stopped ??= error;
      for (const waiting of this.#waiting.values()) waiting.reject(this.#stopped);
      this.#waiting.clear();
    };
    worker.on('error', (error) => stop(new Error(`deciding thread ${index} failed: ${error.message}`, { cause: error })));
    worker.on('exit', (code) => stop(new Error(`deciding thread ${index} stopped (exit code ${code})`)));
  }

  send<T>(message: (id: number) => ToDeciding): Promise<T> {
    if (this.#stopped) return Promise.reject(this.#stopped);
    const id = ++this.#nextId;
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      this.worker.ref();
      this.worker.postMessage(message(id));
    });
  }

  async close(): Promise<void> {
    if (this.#stopped) return;
    const exited = new Promise((resolve) => this.worker.once('exit', resolve));
    this.worker.ref();
    this.worker.postMessage({ close: true } satisfies ToDeciding);
    await exited;
  }
}

export class DecisionThreads implements DecisionRouter {
  readonly #threads: DecidingThread[];
  /** Each business's partition count, as recorded in the log (none recorded: DEFAULT_PARTITIONS). */
  readonly #counts: PartitionCounts;
  readonly #store: EventStore;
  /** A catch-up of this thread's store is under way, and whether decisions were answered since it began. */
  #catchingUp: Promise<void> | undefined;
  #answeredSince = false;
  #closed = false;
  readonly #logger: Logger;

  private constructor(threads: DecidingThread[], counts: PartitionCounts, store: EventStore, logger: Logger) {
    this.#logger = logger;
    this.#threads = threads;
    this.#counts = counts;
    this.#store = store;
  }

  /** Starts `threads` deciding threads; resolves once each has built its state and can decide. */
  static async start(threads: number, options: DecisionThreadsOptions): Promise<DecisionThreads> {
    const { store, writer, logger, observer, ...data } = options;
    const counts = await PartitionCounts.load(store);
    const answered = { upTo: 0 };
    store.followOthers(() => answered.upTo);
    const known = [...counts.entries()];
    const started = Array.from({ length: threads }, (_, index) => {
      const port = writer.connect();
      const logLevel = logger.level;
      const worker = startThread(
        entry,
        () => ({ ...data, index, threads, writer: port, counts: known, logLevel }) satisfies DecidingThreadData,
        [port],
      );
      const thread = new DecidingThread(worker, index, logger, observer, answered);
      return new Promise<DecidingThread>((resolve, reject) => {
        const failed = (error: Error) => reject(new Error(`deciding thread ${index} did not start: ${error.message}`, { cause: error }));
        const exited = (code: number) => failed(new Error(`exit code ${code}`));
        worker.once('error', failed);
        worker.once('exit', exited);
        const ready = (message: FromDeciding) => {
          if (!('ready' in message)) return;
          worker.off('message', ready);
          worker.off('error', failed);
          worker.off('exit', exited);
          worker.unref();
          resolve(thread);
        };
        worker.on('message', ready);
      });
    });
    const settled = await Promise.allSettled(started);
    const failure = settled.find((s) => s.status === 'rejected');
    const ok = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    if (failure) {
      counts.close();
      await Promise.all(ok.map((t) => t.close()));
      throw failure.reason;
    }
    return new DecisionThreads(ok, counts, store, logger);
  }

  async decide(actor: Actor, request: InstantRequest): Promise<Decision> {
    const count = this.#counts.count(actor.businessId);
    const partition = decisionPartition(request, count);
    const thread = this.#threads[threadOfPartition(partition, this.#threads.length)]!;
    try {
      return await thread.send<Decision>((id) => ({ id, decide: { actor, request, count, partition } }));
    } finally {
      this.#follow();
    }
  }

  /**
   * This thread's store hears of the deciding threads' commits soon after they are answered, not at the tail's next
   * poll: the deferred read models, the shadows, the metrics and backtests' head follow the decisions. One catch-up at
   * a time, and another once it ends if decisions were answered meanwhile.
   */
  #follow(): void {
    if (this.#closed) return;
    if (this.#catchingUp) {
      this.#answeredSince = true;
      return;
    }
    this.#answeredSince = false;
    this.#catchingUp = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.#store.catchUp())
      .catch((err: unknown) => this.#logger.warn({ err }, 'catching up with the deciding threads failed; the tail will'))
      .finally(() => {
        this.#catchingUp = undefined;
        if (this.#answeredSince) this.#follow();
      });
  }

  /** Reloads every thread's rules; resolves once each has swapped (or refused) them. */
  reload(): Promise<unknown> {
    return Promise.all(this.#threads.map((t) => t.send((id) => ({ id, reload: true }))));
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#catchingUp;
    this.#counts.close();
    await Promise.all(this.#threads.map((t) => t.close()));
  }
}

/**
 * The engine's thread once threads decide: it follows no partition from now on, and lets go of the windows and
 * history its start built, which no decision of its own reads any more (lists and devices stay).
 */
export function holdNoPartition(state: MonitoringState, follow: (holding: PartitionHolding) => unknown): void {
  follow(HOLDS_NO_PARTITION);
  const { ruleset } = state;
  for (const business of state.businesses.values()) {
    business.velocity = new VelocityStore(ruleset);
    business.history = new HistoryStore(ruleset.schema, ruleset.history);
  }
}
