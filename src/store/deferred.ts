import type { DeferredReply } from './commit.js';
import type { StoredEvent } from './types.js';

export interface DeferredOptions {
  /** The event types the deferred read models handle. */
  types: ReadonlySet<string>;
  /** How long after a commit a pass waits, so that one pass (one transaction) takes many commits' events. */
  delayMs: number;
  /** Events per pass: the longest a pass holds the write lock between two commits. */
  pageSize: number;
  onError(error: unknown): void;
}

/**
 * Keeps the deferred read models (those off the commit path) near the head: a pass runs `delayMs` after the first
 * commit it has not applied, in pages between commits, and `settle()` brings them to what this process has seen
 * before a read that must include it.
 */
export class DeferredProjections {
  readonly #run: (limit: number) => Promise<DeferredReply>;
  readonly #options: DeferredOptions;
  /** The newest position of an event they handle that this process has seen. */
  #seen = 0;
  /** The position the read models stand at, as the last pass left them. */
  #through = 0;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;

  constructor(run: (limit: number) => Promise<DeferredReply>, options: DeferredOptions) {
    this.#run = run;
    this.#options = options;
  }

  /** The read models may lag the log by up to `head` (at start, or after a rebuild): a pass will find out. */
  behindUpTo(head: number): void {
    this.#seen = Math.max(this.#seen, head);
    this.#schedule();
  }

  /** Committed events, this process's or another's. */
  committed(events: readonly StoredEvent[]): void {
    for (let i = events.length - 1; i >= 0; i--) {
      const event = events[i]!;
      if (event.position <= this.#seen) break;
      if (this.#options.types.has(event.type)) {
        this.#seen = event.position;
        break;
      }
    }
    this.#schedule();
  }

  /** Events seen and not yet applied (a /metrics gauge). */
  get lag(): number {
    return Math.max(0, this.#seen - this.#through);
  }

  /** Resolves once the read models hold every event this process had seen when called. */
  async settle(): Promise<void> {
    const target = this.#seen;
    while (this.#through < target) {
      const from = this.#through;
      const joined = this.#running !== undefined;
      await (this.#running ?? this.#pass());
      // A failed pass, or one of its own that moved nothing, leaves the read as the read models stand.
      if (this.#failed || (!joined && this.#through === from)) return;
    }
  }

  #failed = false;
  #closed = false;

  /** Applies what was seen, then runs no more passes. */
  async close(): Promise<void> {
    await this.settle();
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  #schedule(): void {
    if (this.#closed || this.#timer || this.#running || this.#seen <= this.#through) return;
    this.#timer = setTimeout(() => void this.#pass(), this.#options.delayMs);
    this.#timer.unref();
  }

  /** Pages until the read models reach the head read by the last page; other work runs between pages. */
  #pass(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#running ??= (async () => {
      try {
        for (;;) {
          const reply = await this.#run(this.#options.pageSize);
          this.#through = Math.max(this.#through, reply.through);
          this.#failed = false;
          if (reply.done) break;
        }
      } catch (error) {
        // Kept for the next commit's pass; reads meanwhile see the read models as they stand.
        this.#failed = true;
        this.#options.onError(error);
      } finally {
        this.#running = undefined;
      }
      if (!this.#failed) this.#schedule();
    })();
    return this.#running;
  }
}
