import type { Logger } from '../logger.js';
import { LOG_CHANNEL } from './commit.js';
import type { EventStore } from './event-store.js';
import { postgresClient } from './postgres.js';

export interface TailObserver {
  /** Seconds from another node's commit (its clock) to this node's subscribers having its events. */
  tailLag(seconds: number): void;
}

export interface LogTailOptions {
  /** Polling interval: the only way on SQLite, the fallback on PostgreSQL should a notification be lost. */
  intervalMs: number;
  /** PostgreSQL only: LISTEN on the log's channel, so a node hears of other nodes' commits as they happen. */
  listenUrl?: string;
  nodeId: string;
  logger: Logger;
  observer?: TailObserver;
}

const RECONNECT_MS = 1000;

/**
 * Keeps this node's subscribers (the in-memory state, the workers) current with what other processes append.
 * Catch-ups never overlap: a wake-up during one runs one more after it.
 */
export class LogTail {
  readonly #store: EventStore;
  readonly #options: LogTailOptions;
  #timer: NodeJS.Timeout | undefined;
  #client: ReturnType<typeof postgresClient> | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  /** Other nodes' commits heard of and not yet caught up with: their head and commit time. */
  #heard: { position: number; at: number }[] = [];
  #closed = false;

  constructor(store: EventStore, options: LogTailOptions) {
    this.#store = store;
    this.#options = options;
  }

  async start(): Promise<void> {
    if (this.#options.intervalMs > 0) {
      this.#timer = setInterval(() => this.wake(), this.#options.intervalMs);
      this.#timer.unref();
    }
    if (this.#options.listenUrl) await this.#listen();
  }

  /** Catches up now (or once more after the catch-up under way). */
  wake(): void {
    if (this.#closed) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#catchUp().finally(() => {
      this.#running = undefined;
      if (this.#again) {
        this.#again = false;
        this.wake();
      }
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
    await this.#running;
  }

  async #catchUp(): Promise<void> {
    try {
      await this.#store.catchUp();
    } catch (err) {
      if (!this.#closed) this.#options.logger.error({ err }, 'tail failed');
      return;
    }
    const now = Date.now();
    const seen = this.#store.notifiedPosition;
    const waiting = this.#heard;
    this.#heard = [];
    for (const h of waiting) {
      if (h.position <= seen) this.#options.observer?.tailLag(Math.max(0, now - h.at) / 1000);
      else this.#heard.push(h);
    }
  }

  async #listen(): Promise<void> {
    const client = postgresClient(this.#options.listenUrl!, `compliance-engine ${this.#options.nodeId} listen`);
    const lost = (err?: Error) => {
      if (this.#client !== client) return;
      this.#client = undefined;
      client.end().catch(() => undefined);
      if (this.#closed) return;
      this.#options.logger.warn({ err }, 'log notifications lost; polling until reconnected');
      setTimeout(() => void this.#listen().catch(() => lost()), RECONNECT_MS).unref();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (message) => {
      const [position, at, node] = (message.payload ?? '').split(':');
      // This node's own commits reach its subscribers from its writer, not through the tail.
      if (node === this.#options.nodeId) return;
      // A commit this node's own append has already read (under the lock, before its own rows) needs no catch-up.
      if (Number(position) <= this.#store.notifiedPosition) return;
      this.#heard.push({ position: Number(position), at: Number(at) });
      this.wake();
    });
    this.#client = client;
    try {
      await client.connect();
      await client.query(`listen ${LOG_CHANNEL}`);
    } catch (err) {
      lost(err as Error);
      return;
    }
    // Whatever was committed while not listening.
    this.wake();
  }
}
