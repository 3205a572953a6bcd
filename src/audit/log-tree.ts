import type { Logger } from '../logger.js';
import type { EventStore, StoredEvent } from '../store/index.js';
import { leafOf } from './leaf.js';
import { checkSubtrees, type StoredSubtrees } from './subtrees.js';
import { TILE, MerkleTree, type Subtrees } from './tree.js';

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

/** How a tree was opened: from a right edge (recorded with a tree head, or stored) or the whole log, and how many events were read to do it. */
export interface TreeOpening {
  from: EdgeSource | 'whole log';
  eventsRead: number;
}

/** Where a right edge to go on from comes from: the last recorded tree head, or the edge the server stores (stored-edge.ts). */
export type EdgeSource = 'recorded edge' | 'stored edge';

/** A right edge to go on from, with the root it must fold to (signed: by a recorded head, or with the stored edge). */
export interface EdgeCandidate {
  source: EdgeSource;
  frontier: Frontier;
  rootHash: string;
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
  readonly #subtrees: StoredSubtrees;
  readonly #logger: Logger;
  /** Leaves up to here have their stored subtrees written (or the table's are taken for them). */
  #storedThrough = 0;
  /** Events read from the log so far (to restore, catch up or rebuild), for the opening's report. */
  #eventsRead = 0;
  #closed = false;

  private constructor(store: EventStore, subtrees: StoredSubtrees, logger: Logger) {
    this.#store = store;
    this.#subtrees = subtrees;
    this.#logger = logger;
    this.#tree = new MerkleTree(this.#readLeaves);
  }

  get tree(): MerkleTree {
    return this.#tree;
  }

  /**
   * The tree of the log, from the first of the right edges in `candidates` that still matches the log (each is
   * checked against the chain hash of its last event, its last tile's leaves and its signed root; the events after
   * it are read, never those before), else from the whole log; with `catchUp`, caught up with the log before it is
   * returned (a server), else at first use (a command). The subtree roots below the edge that proofs need are read
   * from the stored subtrees and checked against the edge (or, failing that, rebuilt from the log) in the
   * background. Queues what the store tells subscribers from the start. `rejected` names the candidates that did
   * not match.
   */
  static async open(
    input: { store: EventStore; subtrees: StoredSubtrees; logger: Logger },
    candidates: readonly EdgeCandidate[],
    catchUp: boolean,
  ): Promise<{ log: LogTree; unfollow: () => void; opening: TreeOpening; rejected: EdgeSource[] }> {
    const log = new LogTree(input.store, input.subtrees, input.logger);
    const unfollow = input.store.subscribe((events) => {
      log.#pending.push(events);
    });
    const rejected: EdgeSource[] = [];
    let from: TreeOpening['from'] = 'whole log';
    for (const candidate of candidates) {
      if (await log.#restore(candidate.frontier, Buffer.from(candidate.rootHash, 'hex'))) {
        from = candidate.source;
        break;
      }
      rejected.push(candidate.source);
    }
    if (catchUp) await log.sync();
    return { log, unfollow, opening: { from, eventsRead: log.#eventsRead }, rejected };
  }

  /** Whether the log still holds the tree whose right edge is `f` and root `rootHash` (as `open` checks an edge). */
  async matches(f: Frontier, rootHash: string): Promise<boolean> {
    return (await this.#check(f, Buffer.from(rootHash, 'hex'))) !== undefined;
  }

  /** The tree of the edge `f`, if the chain hash of its last event, its last tile's leaves and `root` agree with it. */
  async #check(f: Frontier, root: Buffer): Promise<MerkleTree | undefined> {
    if (f.size === 0) return undefined;
    const [last] = await this.#store.readAll({ after: f.lastPosition - 1, limit: 1 });
    if (last?.position !== f.lastPosition || last.hash !== f.lastChainHash) return undefined;
    const tileStart = f.size - (f.size % TILE);
    const tail = await this.#store.readAll({ after: tileStart, limit: f.size % TILE });
    this.#eventsRead += 1 + tail.length;
    return MerkleTree.restore(
      this.#readLeaves,
      f.size,
      f.hashes,
      tail.map((e) => leafOf(e.position, e.hash)),
      root,
    );
  }

  async #restore(f: Frontier, root: Buffer): Promise<boolean> {
    const tree = await this.#check(f, root);
    if (!tree) return false;
    this.#tree = tree;
    this.#last = f.lastPosition;
    this.#lastHash = f.lastChainHash;
    this.#storedThrough = f.size;
    const edge = f.hashes.map((hex) => (hex === '' ? undefined : Buffer.from(hex, 'hex')));
    // A command may close before they are in; whoever waits for them (a proof) gets the error.
    this.#tree.backfill(this.#below(f.size, f.lastPosition, edge)).catch(() => undefined);
    return true;
  }

  /** The subtree roots within the first `size` leaves: the stored ones if they pass the check, else rebuilt from the log. */
  async #below(size: number, lastPosition: number, edge: readonly (Buffer | undefined)[]): Promise<Subtrees> {
    const stored = await this.#subtrees.read(size);
    const wrong = checkSubtrees(stored, size, edge);
    if (!wrong) return stored;
    this.#logger.warn(
      { treeSize: size, problem: wrong },
      'the stored audit subtrees do not match the right edge the tree went on from: rebuilt from the log',
    );
    // Stored again, whole, with the next tree head.
    this.#storedThrough = 0;
    return this.#rebuild(lastPosition);
  }

  /** The subtree roots of the log up to `upTo`, hashed a slice at a time. */
  async #rebuild(upTo: number): Promise<Subtrees> {
    const tree = new MerkleTree(this.#readLeaves);
    const pause = slicer();
    for await (const event of this.#store.iterateAll({ after: 0, pageSize: PAGE })) {
      if (this.#closed) throw new Error('the audit tree was closed before its subtree roots were rebuilt');
      if (event.position > upTo) break;
      this.#eventsRead++;
      tree.append(leafOf(event.position, event.hash));
      await pause();
    }
    return tree.subtreesAfter(0);
  }

  /**
   * Stores the subtree roots completed since the last time, up to `size` (a tree head's): called once that head is
   * recorded, whose right edge they are checked against at the next start.
   */
  async storeSubtrees(size: number): Promise<void> {
    // Whether the stored ones below the restored edge passed their check decides where to go on from.
    await this.#tree.backfilled();
    const from = this.#storedThrough;
    if (size <= from) return;
    const subtrees = this.#tree.subtreesAfter(from);
    for (const [h, hashes] of subtrees) subtrees.set(h, hashes.slice(0, Math.floor(size / 2 ** h)));
    await this.#subtrees.write(subtrees);
    this.#storedThrough = size;
  }

  /** Stops a rebuild still running (its next page would meet a closed store). */
  close(): void {
    this.#closed = true;
  }

  /** The right edge of the tree as it is now, to record with a tree head or store. */
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
      this.#eventsRead++;
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
