import type { EventStore, StoredEvent } from '../store/index.js';
import { leafOf } from './leaf.js';
import { TILE, MerkleTree } from './tree.js';

/**
 * The tree's right edge as recorded with a tree head: enough to go on appending after a restart without hashing
 * the whole log again. `lastChainHash` is the chain hash of the event at `lastPosition`, which commits to every
 * event before it: a log rewritten since (even with its chain recomputed) no longer matches, and the frontier is
 * dropped for a rebuild.
 */
export interface Frontier {
  size: number;
  lastPosition: number;
  lastChainHash: string;
  /** Per level, the hex root waiting for its right sibling, or ''. */
  hashes: string[];
}

/** Events hashed between two yields to the event loop while catching up or rebuilding: a few milliseconds' work. */
const SLICE = 1024;
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The Merkle tree of the event log, kept in memory and fed from the store's subscription. A commit only queues its
 * events here (one array push); they are hashed into the tree later, off the append path, by `sync()`: on a timer,
 * and before anything reads the tree. Only the store's public API is used, so the tree works on every backend.
 * Reading the log (at a start, or after missed notifications) yields to the event loop every SLICE events, so that
 * requests are answered meanwhile.
 */
export class LogTree {
  #tree: MerkleTree;
  readonly #store: EventStore;
  #pending: (readonly StoredEvent[])[] = [];
  /** The last log position hashed into the tree (a log with a gap has fewer leaves than positions). */
  #last = 0;
  #lastHash = '';
  #syncing: Promise<void> = Promise.resolve();

  private constructor(store: EventStore) {
    this.#store = store;
    this.#tree = new MerkleTree(this.#readLeaves);
  }

  get tree(): MerkleTree {
    return this.#tree;
  }

  /**
   * The tree of the log, from `frontier` when it still matches the log (then only the events after it are read now,
   * and the subtree roots proofs need are rebuilt in the background), else from the whole log; with `catchUp`, caught
   * up with the log before it is returned (a server), else at first use (a command). Queues what the store tells
   * subscribers from the start.
   */
  static async open(
    store: EventStore,
    frontier: Frontier | undefined,
    catchUp: boolean,
  ): Promise<{ log: LogTree; unfollow: () => void; restored: boolean }> {
    const log = new LogTree(store);
    const unfollow = store.subscribe((events) => {
      log.#pending.push(events);
    });
    const restored = frontier !== undefined && (await log.#restore(frontier));
    if (catchUp) await log.sync();
    return { log, unfollow, restored };
  }

  async #restore(f: Frontier): Promise<boolean> {
    const [last] = await this.#store.readAll({ after: f.lastPosition - 1, limit: 1 });
    if (f.size === 0 || last?.position !== f.lastPosition || last.hash !== f.lastChainHash) return false;
    const tileStart = f.size - (f.size % TILE);
    const recent = (await this.#store.readAll({ after: tileStart, limit: f.size % TILE })).map((e) => leafOf(e.position, e.hash));
    this.#tree = MerkleTree.restore(this.#readLeaves, f.size, f.hashes, recent);
    this.#last = f.lastPosition;
    this.#lastHash = f.lastChainHash;
    void this.#tree.backfill(this.#rebuild(f.lastPosition));
    return true;
  }

  /** The tree of the log up to `upTo`, hashed a slice at a time. */
  async #rebuild(upTo: number): Promise<MerkleTree> {
    const tree = new MerkleTree(this.#readLeaves);
    let n = 0;
    for await (const event of this.#store.iterateAll({ after: 0 })) {
      if (event.position > upTo) break;
      tree.append(leafOf(event.position, event.hash));
      if (++n % SLICE === 0) await yieldToLoop();
    }
    return tree;
  }

  /** The right edge of the tree as it is now, to record with a tree head. */
  frontier(): Frontier {
    return { size: this.#tree.size, lastPosition: this.#last, lastChainHash: this.#lastHash, hashes: this.#tree.frontier() };
  }

  /** Hashes everything the store has told subscribers of into the tree (reading from the log what it missed). */
  sync(): Promise<MerkleTree> {
    const run = this.#syncing.then(() => this.#fold());
    this.#syncing = run.catch(() => undefined);
    return run.then(() => this.#tree);
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
    let n = 0;
    for await (const event of this.#store.iterateAll({ after: this.#last })) {
      if (event.position > upTo) return;
      this.#append(event);
      if (++n % SLICE === 0) await yieldToLoop();
    }
  }

  #append(event: StoredEvent): void {
    this.#tree.append(leafOf(event.position, event.hash));
    this.#last = event.position;
    this.#lastHash = event.hash;
  }

  readonly #readLeaves = async (start: number, count: number) => {
    // Leaf i is position i + 1 on a log without gaps; on one with gaps the leaves read back differ and proofs fail.
    const events = await this.#store.readAll({ after: start, limit: count });
    return events.map((e) => leafOf(e.position, e.hash));
  };
}
