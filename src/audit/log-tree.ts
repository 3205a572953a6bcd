import type { EventStore, StoredEvent } from '../store/index.js';
import { leafOf } from './leaf.js';
import { MerkleTree } from './tree.js';

/**
 * The Merkle tree of the event log, kept in memory and fed from the store's subscription. A commit only queues its
 * events here (one array push); they are hashed into the tree later, off the append path, by `sync()`: on a timer,
 * and before anything reads the tree. Only the store's public API is used, so the tree works on every backend.
 */
export class LogTree {
  readonly tree: MerkleTree;
  readonly #store: EventStore;
  #pending: (readonly StoredEvent[])[] = [];
  /** The last log position hashed into the tree (a log with a gap has fewer leaves than positions). */
  #last = 0;
  #syncing: Promise<void> = Promise.resolve();

  constructor(store: EventStore) {
    this.#store = store;
    this.tree = new MerkleTree((start, count) => this.#readLeaves(start, count));
  }

  /** Starts queueing the events subscribers are told of; returns the unsubscribe. */
  follow(): () => void {
    return this.#store.subscribe((events) => {
      this.#pending.push(events);
    });
  }

  /** Hashes everything the store has told subscribers of into the tree (reading from the log what it missed). */
  sync(): Promise<MerkleTree> {
    const run = this.#syncing.then(() => this.#fold());
    this.#syncing = run.catch(() => undefined);
    return run.then(() => this.tree);
  }

  async #fold(): Promise<void> {
    const batches = this.#pending;
    this.#pending = [];
    for (const batch of batches) {
      for (const event of batch) {
        if (event.position <= this.#last) continue;
        if (event.position > this.#last + 1) await this.#readFromLog(event.position - 1);
        this.#append(event);
      }
    }
    const told = this.#store.notifiedPosition;
    if (told > this.#last) await this.#readFromLog(told);
  }

  async #readFromLog(upTo: number): Promise<void> {
    for await (const event of this.#store.iterateAll({ after: this.#last })) {
      if (event.position > upTo) return;
      this.#append(event);
    }
  }

  #append(event: StoredEvent): void {
    this.tree.append(leafOf(event.position, event.hash));
    this.#last = event.position;
  }

  async #readLeaves(start: number, count: number) {
    // Leaf i is position i + 1 on a log without gaps; on one with gaps the leaves read back differ and proofs fail.
    const events = await this.#store.readAll({ after: start, limit: count });
    return events.map((e) => leafOf(e.position, e.hash));
  }
}
