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

/**
 * Reading the log to catch up or rebuild, the tree yields to the event loop once it has worked this long, so that a
 * request waits for at most one slice per turn of the loop it needs (a request takes several).
 */
const SLICE_MS = 2;
/** Events per page read: a page is read and parsed in one go (2,000 held the loop for 40 to 140 ms on a loaded machine). */
const PAGE = 64;

/** Answers a function to call after each event: it yields to the event loop once SLICE_MS have passed. */
function slicer(): () => Promise<void> | undefined {
  let since = performance.now();
  return () => {
    if (performance.now() - since < SLICE_MS) return undefined;
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        since = performance.now();
        resolve();
      }),
    );
  };
}

/**
 * The Merkle tree of the event log, kept in memory and fed from the store's subscription. A commit only queues its
 * events here (one array push); they are hashed into the tree later, off the append path, by `sync()`: on a timer,
 * and before anything reads the tree. Only the store's public API is used, so the tree works on every backend.
 * Reading the log (at a start, or after missed notifications) yields to the event loop every SLICE_MS, so that
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
  /**
   * The rebuild of the subtree roots below a restored frontier. A server waits for it before it answers: run in the
   * background, its slices took turns with every request's several turns of the event loop, and /healthz lagged by up
   * to a second while it ran (test/audit/startup-stall.test.ts).
   */
  #backfilling: Promise<void> | undefined;
  #closed = false;

  private constructor(store: EventStore) {
    this.#store = store;
    this.#tree = new MerkleTree(this.#readLeaves);
  }

  get tree(): MerkleTree {
    return this.#tree;
  }

  /**
   * The tree of the log, from `frontier` when it still matches the log (its root and appends work at once; the subtree
   * roots proofs need are rebuilt from the log meanwhile), else from the whole log; with `catchUp`, caught up with the
   * log and rebuilt before it is returned (a server), else at first use (a command). Queues what the store tells
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
    if (catchUp) await Promise.all([log.sync(), log.#backfilling]);
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
    this.#backfilling = this.#tree.backfill(this.#rebuild(f.lastPosition));
    // A command may close before the rebuild is done; whoever waits for it (a proof) gets the error.
    this.#backfilling.catch(() => undefined);
    return true;
  }

  /** The tree of the log up to `upTo`, hashed a slice at a time. */
  async #rebuild(upTo: number): Promise<MerkleTree> {
    const tree = new MerkleTree(this.#readLeaves);
    const pause = slicer();
    for await (const event of this.#store.iterateAll({ after: 0, pageSize: PAGE })) {
      if (this.#closed) throw new Error('the audit tree was closed before its subtree roots were rebuilt');
      if (event.position > upTo) break;
      tree.append(leafOf(event.position, event.hash));
      await pause();
    }
    return tree;
  }

  /** Stops a rebuild still running (its next page would meet a closed store). */
  close(): void {
    this.#closed = true;
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
    const pause = slicer();
    for await (const event of this.#store.iterateAll({ after: this.#last, pageSize: PAGE })) {
      if (event.position > upTo) return;
      this.#append(event);
      await pause();
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
