import type { Logger } from '../logger.js';
import type { EventStore } from '../store/index.js';

/** The claim of the node that publishes tree heads for the whole cluster. */
const PUBLISHER_CLAIM = 'audit-tree-head-publisher';

/** The audit log's timers: hashing what was appended into the tree, and publishing tree heads. */
export class Upkeep {
  readonly #store: EventStore;
  readonly #logger: Logger;
  readonly #timers: NodeJS.Timeout[] = [];
  #closed = false;
  /** Ends the publisher's wait between two heads, at close. */
  #wake: (() => void) | undefined;

  constructor(store: EventStore, logger: Logger) {
    this.#store = store;
    this.#logger = logger;
  }

  every(ms: number, run: () => Promise<unknown>): void {
    const timer = setInterval(() => void run().catch((err) => this.#logger.error({ err }, 'audit tree upkeep failed')), ms);
    timer.unref();
    this.#timers.push(timer);
  }

  /**
   * One node of the cluster publishes: the one holding the publisher's claim, which it keeps until it closes or
   * dies. Every node's timer tries to take it, so another node takes over at its next tick after that. On SQLite
   * the one process holds it.
   */
  publishEvery(intervalMs: number, publish: () => Promise<unknown>): void {
    this.every(intervalMs, () =>
      this.#store.exclusive(PUBLISHER_CLAIM, async () => {
        while (!this.#closed) {
          await publish().catch((err: unknown) => this.#logger.error({ err }, 'audit tree head could not be published'));
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, intervalMs);
            timer.unref();
            this.#wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
        }
      }),
    );
  }

  close(): void {
    this.#closed = true;
    this.#wake?.();
    for (const t of this.#timers) clearInterval(t);
  }
}
