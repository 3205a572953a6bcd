import type { DeferredReply } from './commit.js';
import type { StoredEvent } from './types.js';

export interface DeferredOptions {
  /** The event types the deferred read models handle. */
  types: ReadonlySet<string>;
  /** How long after a commit a pass waits, so that one pass (one transaction) takes many commits' events. */
  delayMs: number;
  /** Events per page while keeping up (ten times as many when catching up): how long a page holds the writer. */
  pageSize: number;
  /** Whether the writer has no commit queued or in flight: a scheduled page waits for that, unless far behind. */
  idle(): boolean;
  /** Events behind past which pages run without waiting for the writer to be idle. */
  maxLag: number;
  onError(error: unknown): void;
}

/** How often a page waiting for the writer to be idle looks again. */
const IDLE_POLL_MS = 1;

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
    this.#settling++;
    try {
      await this.#settleTo(target);
    } finally {
      this.#settling--;
    }
  }

  /** settle() calls under way: a pass they join runs long pages without waiting for the writer to be idle. */
  #settling = 0;

  async #settleTo(target: number): Promise<void> {
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
  #paused = false;

  /**
   * Whether passes run on their own after commits (on by default). Off, this process leaves the read models to
   * the other nodes sharing the log (a bench pins the shared work to one node so); settle() still runs passes.
   */
  passes(on: boolean): void {
    this.#paused = !on;
    if (this.#paused && this.#timer) clearTimeout(this.#timer);
    if (this.#paused) this.#timer = undefined;
    this.#schedule();
  }

  /** Applies what was seen, then runs no more passes. */
  async close(): Promise<void> {
    await this.settle();
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  #schedule(): void {
    if (this.#closed || this.#paused || this.#timer || this.#running || this.#seen <= this.#through) return;
    this.#timer = setTimeout(() => void this.#pass(true), this.#options.delayMs);
    this.#timer.unref();
  }

  async #writerIdle(): Promise<void> {
    while (!this.#closed && this.#settling === 0 && !this.#options.idle() && this.lag < this.#options.maxLag) {
      await new Promise((resolve) => setTimeout(resolve, IDLE_POLL_MS));
    }
  }

  /**
   * Pages until the read models reach the head read by the last page. Scheduled pages wait for the writer to be
   * idle, so a page delays a commit by its own length at most; a settle() does not wait.
   */
  #pass(scheduled = false): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#running ??= (async () => {
      try {
        for (;;) {
          if (scheduled) await this.#writerIdle();
          // Behind, or asked to settle: pages ten times longer, since each page is a transaction of its own.
          const catchingUp = !scheduled || this.#settling > 0 || this.lag >= this.#options.maxLag;
          const reply = await this.#run(this.#options.pageSize * (catchingUp ? 10 : 1));
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
