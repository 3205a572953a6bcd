import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import { type BatchReply, type EncodedAppend, encodeAppend, type RowHeader } from './batch.js';
import { Claims } from './claims.js';
import { readHead, type InlineProjector } from './commit.js';
import { DeferredProjections } from './deferred.js';
import { appendFence, ControlFence } from './fence.js';
import { type ChainReport, verifyChain } from './chain.js';
import { inPages, readAfter, readByIds, readStreamFrom, streamVersionOf, typePage } from './reads.js';
import { freshEvent, tailRowToEvent } from './rows.js';
import type { StoreTables, TailRow } from './schema.js';
import type {
  AppendObserver,
  AppendOptions,
  AppendResult,
  EventMetadata,
  NewEvent,
  ReadAllOptions,
  StoredEvent,
  StreamWrite,
  Subscriber,
} from './types.js';
import type { StorageHealth } from './storage-health.js';
import { Upcasters } from './upcasters.js';
import { WholeRows } from './whole-rows.js';
import { InlineWriter, type Writer } from './writer.js';
import { DEFAULT_COMMIT_INTERVAL_MS, EAGER_BATCH, MAX_IN_FLIGHT, OVERLAP_MEMORY_MS } from './batching.js';
import { startBatchTrace, type StoreTrace, tracedPage } from './trace.js';

export type { InlineProjector };

interface Pending {
  append: EncodedAppend;
  metadata: EventMetadata;
  enqueuedAt: number;
  resolve(results: AppendResult[]): void;
  reject(error: unknown): void;
}

const closedError = () => new Error('event store is closed');

export class EventStore {
  readonly upcasters: Upcasters;
  /** The partitions the catch-up reads whole (whole-rows.ts). */
  readonly wholeRows = new WholeRows();
  readonly #db: Kysely<StoreTables>;
  readonly #clock: Clock;
  readonly #subscribers = new Set<Subscriber>();
  #projector: InlineProjector | undefined;
  readonly #writer: Writer;
  #observer: AppendObserver | undefined;
  #trace: StoreTrace | undefined;
  #queue: Pending[] = [];
  #flushScheduled = false;
  #inFlight = 0;
  readonly #commitIntervalMs: number;
  #lastSent = Number.NEGATIVE_INFINITY;
  /** When an append last arrived while a batch was in flight: the load is concurrent, and batches may wait. */
  #lastOverlap = Number.NEGATIVE_INFINITY;
  #intervalTimer: NodeJS.Timeout | undefined;
  /** Batches settle in the order they were sent, so subscribers see each event exactly once and in order. */
  #settled: Promise<void> = Promise.resolve();
  #notified = 0;
  #closed = false;

  readonly #onSubscriberError: (error: unknown) => void;
  readonly #health: StorageHealth | undefined;
  /** This node's name, in the commit notifications other nodes hear. */
  readonly #origin: string | undefined;
  readonly #claims: Claims;
  #deferred: DeferredProjections | undefined;
  readonly #fenced: boolean;
  #others: (() => number) | undefined;

  constructor(
    db: Kysely<any>,
    clock: Clock,
    options: {
      upcasters?: Upcasters;
      onSubscriberError?: (error: unknown) => void;
      writer?: Writer;
      health?: StorageHealth;
      origin?: string;
      /** Background work's claims across nodes (default: this process's alone). */
      claims?: Claims;
      /** The least milliseconds between two batches sent to the writer (DEFAULT_COMMIT_INTERVAL_MS; 0: none). */
      commitIntervalMs?: number;
      /**
       * Event types that change a business's control state (its lists): an append given the position it was made
       * at is refused with StaleControlError if one of these, for its business, committed after that position
       * (fence.ts). For several nodes on one database, or deciding threads; needs a writer that sees every commit.
       */
      controlTypes?: ReadonlySet<string>;
    } = {},
  ) {
    if (options.controlTypes && options.writer && !options.writer.fences) throw new Error('a control fence needs a writer that fences');
    this.#commitIntervalMs = options.commitIntervalMs ?? DEFAULT_COMMIT_INTERVAL_MS;
    this.#claims = options.claims ?? new Claims();
    this.#health = options.health;
    this.#origin = options.origin;
    this.#db = db;
    this.#clock = clock;
    this.upcasters = options.upcasters ?? new Upcasters();
    this.#onSubscriberError = options.onSubscriberError ?? (() => undefined);
    this.#fenced = options.controlTypes !== undefined;
    this.#writer =
      options.writer ?? new InlineWriter(db, () => this.#projector, options.controlTypes && new ControlFence(options.controlTypes));
  }

  /** Subscribers attached after this only see events after the current head. */
  async init(): Promise<void> {
    this.#notified = (await readHead(this.#db)).position;
  }

  /** Applies to the inline writer only; a thread writer builds its own projector in its thread. */
  setProjector(projector: InlineProjector): void {
    this.#projector = projector;
  }

  /**
   * Keeps the projector's deferred read models (those of `types`, applied off the commit path) near the head: a
   * pass `delayMs` after a commit, in transactions of `pageSize` events run when no commit is queued or in flight
   * (defaults 100 ms and 100 events), or regardless once 20,000 events behind.
   */
  keepDeferred(types: ReadonlySet<string>, options: { delayMs?: number; pageSize?: number } = {}): void {
    if (types.size === 0) return;
    this.#deferred = new DeferredProjections((limit) => tracedPage(this.#trace, () => this.#writer.projectDeferred(limit)), {
      types,
      delayMs: options.delayMs ?? 100,
      pageSize: options.pageSize ?? 100,
      idle: () => this.#inFlight === 0 && this.#queue.length === 0,
      maxLag: 20_000,
      onError: (error) => this.#onSubscriberError(error),
    });
    this.#deferred.behindUpTo(this.#notified);
  }

  /** Brings the deferred read models up to every event this process has seen, before a read that must include them. */
  async settleDeferred(): Promise<void> {
    if (this.#others && this.#others() > this.#notified) await this.catchUp();
    return this.#deferred?.settle();
  }

  /** The position this process's other stores (deciding threads) have answered up to: settleDeferred includes it. */
  followOthers(acknowledged: () => number): void {
    this.#others = acknowledged;
  }

  /** Whether the deferred read models' passes run on their own after commits here (DeferredProjections.passes). */
  deferredPasses(on: boolean): void {
    this.#deferred?.passes(on);
  }

  /** Events this process has seen that the deferred read models do not hold yet. */
  get deferredLag(): number {
    return this.#deferred?.lag ?? 0;
  }

  setObserver(observer: AppendObserver): void {
    this.#observer = observer;
  }

  /** Tells `trace` each batch's and deferred page's timeline (a bench's TIMELINE); undefined stops it. */
  trace(trace: StoreTrace | undefined): void {
    this.#trace = trace;
  }

  subscribe(subscriber: Subscriber): () => void {
    this.#subscribers.add(subscriber);
    return () => this.#subscribers.delete(subscriber);
  }

  /** The global position up to which subscribers have been told. */
  get notifiedPosition(): number {
    return this.#notified;
  }

  async append(streamId: string, events: readonly NewEvent[], options: AppendOptions): Promise<AppendResult> {
    const [result] = await this.appendMany([{ streamId, events, expectedVersion: options.expectedVersion }], options.metadata);
    return result!;
  }

  /**
   * Appends to several streams atomically: all writes commit together or none does. Appends queued together
   * (those of one tick, in parts of EAGER_BATCH, and all that wait while the writer is full) share one
   * transaction and one fsync (group commit); one append's conflict does not fail its neighbours.
   * `madeAt`: the notified position the state this append was decided from stood at; with a control fence
   * (`controlTypes`), the append is refused with StaleControlError should its business's control state have
   * changed after it, or, when `metadata.partition` is set and `fence` is 'partition' (a leased partition), should
   * another process have appended for that partition.
   */
  appendMany(
    writes: readonly StreamWrite[],
    metadata: EventMetadata,
    madeAt?: number,
    fence: 'business' | 'partition' = 'partition',
  ): Promise<AppendResult[]> {
    if (this.#closed) return Promise.reject(closedError());
    return new Promise((resolve, reject) => {
      // Serialised now, in the caller's tick: the stored text is fixed before the caller can mutate its objects.
      const text = JSON.stringify(metadata);
      const append = encodeAppend(writes, text, metadata.partition, this.upcasters);
      if (this.#fenced && madeAt !== undefined) append.fence = appendFence(metadata, madeAt, fence === 'partition');
      const enqueuedAt = performance.now();
      if (this.#inFlight > 0) this.#lastOverlap = enqueuedAt;
      this.#queue.push({ append, metadata: JSON.parse(text) as EventMetadata, enqueuedAt, resolve, reject });
      if (this.#queue.length >= EAGER_BATCH) this.#pump();
      else if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(() => {
          this.#flushScheduled = false;
          this.#pump();
        });
      }
    });
  }

  /** Resolves once every append queued so far has committed or failed. */
  async drain(): Promise<void> {
    do {
      await this.#settled;
      await new Promise((r) => setImmediate(r));
    } while (this.#queue.length > 0 || this.#flushScheduled || this.#inFlight > 0);
  }

  /** Tells subscribers of events that another process appended (the CLI, a second server). */
  async catchUp(): Promise<void> {
    if (this.#closed) throw closedError();
    const reply = await this.#dispatch([]);
    if ('failure' in reply) throw reply.failure;
  }

  /**
   * Runs background work (a job named by `key`) unless another node or run holds it: undefined then. Workers still
   * record their outcome at the stream version they read; this keeps the work itself from running twice.
   */
  exclusive<T>(key: string, work: () => Promise<T>): Promise<{ value: T } | undefined> {
    return this.#claims.exclusive(key, work);
  }

  /** Refuses new appends, waits for the queued ones, then stops the writer and gives up its claims. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.drain();
    await this.#deferred?.close();
    await this.#writer.close();
    await this.#claims.close();
  }

  readStream(streamId: string, fromVersion = 1): Promise<StoredEvent[]> {
    return readStreamFrom(this.#db, this.upcasters, streamId, fromVersion);
  }

  readAll(options: ReadAllOptions = {}): Promise<StoredEvent[]> {
    return readAfter(this.#db, this.upcasters, options);
  }

  /** The events at these positions, in log order (positions a read model indexed, such as one business's decisions). */
  readPositions(positions: readonly number[]): Promise<StoredEvent[]> {
    return readByIds(this.#db, this.upcasters, 'global_position', positions);
  }

  /** The first event of each of these streams (a decision's stream holds its one event), in log order. */
  readFirstEvents(streamIds: readonly string[]): Promise<StoredEvent[]> {
    return readByIds(this.#db, this.upcasters, 'stream_id', streamIds);
  }

  /** Every event after `after`, in order, read in pages so memory stays flat on long logs. */
  iterateAll(options: Omit<ReadAllOptions, 'limit'> & { pageSize?: number } = {}): AsyncGenerator<StoredEvent> {
    return inPages(
      options,
      (o) => this.readAll(o),
      () => this.head(),
      (type, from, upTo, limit) => typePage(this.#db, this.upcasters, type, from, upTo, limit),
    );
  }

  streamVersion(streamId: string): Promise<number> {
    return streamVersionOf(this.#db, streamId);
  }

  async head(): Promise<number> {
    return (await readHead(this.#db)).position;
  }

  /** Recomputes every link of the hash chain and checks that positions have no gaps. */
  verifyChain(): Promise<ChainReport> {
    return verifyChain(this.#db);
  }

  /** Sends everything queued as one batch, if the writer has room; otherwise a settling batch sends it. */
  #pump(): void {
    if (this.#queue.length === 0 || this.#inFlight >= MAX_IN_FLIGHT) return;
    const now = performance.now();
    const wait = this.#lastSent + this.#commitIntervalMs - now;
    if (wait > 0 && now - this.#lastOverlap < OVERLAP_MEMORY_MS && this.#queue.length < EAGER_BATCH) {
      this.#intervalTimer ??= setTimeout(() => {
        this.#intervalTimer = undefined;
        this.#pump();
      }, wait);
      return;
    }
    this.#lastSent = now;
    const batch = this.#queue;
    this.#queue = [];
    void this.#dispatch(batch);
  }

  #dispatch(batch: readonly Pending[]): Promise<BatchReply | { failure: unknown }> {
    this.#inFlight++;
    const request = {
      appends: batch.map((p) => p.append),
      recordedAt: this.#clock.now().toISOString(),
      after: this.#notified,
      origin: this.#origin,
      whole: this.wholeRows.partitions,
    };
    const trace = this.#trace && startBatchTrace(batch, request, this.#inFlight);
    const reply = this.#writer.write(request).catch((failure: unknown) => ({ failure }));
    trace?.replied(reply);
    const settled = this.#settled.then(async () => {
      const answer = await reply;
      this.#inFlight--;
      // The appends that queued meanwhile go to the writer before these callers' continuations run.
      this.#pump();
      const settling = trace?.settling();
      this.#settle(batch, answer);
      settling?.(this.#trace, answer);
      return answer;
    });
    this.#settled = settled.then(
      () => undefined,
      () => undefined,
    );
    return settled;
  }

  #settle(batch: readonly Pending[], reply: BatchReply | { failure: unknown }): void {
    if ('failure' in reply) {
      if (batch.length > 0) this.#health?.failed(reply.failure);
      for (const pending of batch) pending.reject(reply.failure);
      return;
    }
    this.#notifyExternal(reply.external);
    const committed: StoredEvent[] = [];
    const settle: (() => void)[] = [];
    const appendSeconds: number[] = [];
    const now = performance.now();
    reply.outcomes.forEach((outcome, i) => {
      const pending = batch[i]!;
      if ('error' in outcome) {
        this.#health?.failed(outcome.error);
        settle.push(() => pending.reject(outcome.error));
        return;
      }
      const results = this.#results(pending, outcome.rows, outcome.nextVersions);
      for (const r of results) committed.push(...r.events);
      appendSeconds.push((now - pending.enqueuedAt) / 1000);
      settle.push(() => pending.resolve(results));
    });
    if (committed.length > 0) {
      this.#health?.succeeded();
      this.#notify(committed);
    }
    this.#observer?.committed(committed.length, appendSeconds, reply.sharedCommit === true);
    for (const s of settle) s();
  }

  /** The stored events of one append, from the writer's row headers and the text this side serialised. */
  #results(pending: Pending, headers: readonly RowHeader[], nextVersions: readonly number[]): AppendResult[] {
    let next = 0;
    return pending.append.writes.map((write, w) => ({
      nextVersion: nextVersions[w]!,
      events: write.events.map((event) => freshEvent(headers[next++]!, event.data, pending.metadata, this.upcasters)),
    }));
  }

  #notifyExternal(rows: readonly TailRow[]): void {
    if (rows.length > 0) this.#notify(rows.map((r) => tailRowToEvent(r, this.upcasters)));
  }

  #notify(events: readonly StoredEvent[]): void {
    this.#notified = events[events.length - 1]!.position;
    this.#deferred?.committed(events);
    // A failing read-side consumer must not fail writes that are already durable.
    for (const subscriber of this.#subscribers) {
      try {
        subscriber(events);
      } catch (error) {
        this.#onSubscriberError(error);
      }
    }
  }
}
