import type { Logger } from '../logger.js';
import type { EventStore, StoredEvent } from '../store/index.js';

/**
 * A background worker: runs `work` on an interval and as soon as an event it cares about is committed (here or,
 * through the tail, by another process). Runs never overlap; `stop` waits for the one under way.
 */
export class BackgroundLoop {
  #timer: NodeJS.Timeout | undefined;
  #unsubscribe: (() => void) | undefined;
  #running: Promise<unknown> = Promise.resolve();
  /** A run is asked for and has not started: a further kick adds nothing, since that run will see its work too. */
  #queued = false;

  constructor(
    private readonly name: string,
    private readonly work: () => Promise<unknown>,
    private readonly logger: Logger,
  ) {}

  start(store: EventStore, intervalMs: number, wakesOn: (event: StoredEvent) => boolean): void {
    this.#timer = setInterval(() => this.kick(), intervalMs);
    this.#timer.unref();
    this.#unsubscribe = store.subscribe((events) => {
      if (events.some(wakesOn)) this.kick();
    });
    this.kick();
  }

  /** Asks for a run soon; ignored when the loop is not started (tests drive the work by hand). */
  kick(): void {
    if (!this.#timer || this.#queued) return;
    this.#queued = true;
    this.#running = this.#running
      .then(() => {
        this.#queued = false;
        return this.work();
      })
      .catch((err) => this.logger.error({ err }, `${this.name} failed`));
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#unsubscribe?.();
    await this.#running;
  }
}
