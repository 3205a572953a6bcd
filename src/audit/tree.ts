import { EMPTY_ROOT, isPowerOfTwo, nodeHash, rootOf, split, type Hash } from './merkle.js';

/** Leaves per tile: subtrees this big and bigger are kept in memory; smaller ones are recomputed from their tile. */
export const TILE = 256;
const TILE_HEIGHT = 8;
/**
 * Subtrees of 2^12 leaves and more are stored (src/audit/subtrees.ts): n / 4096 hashes, from which a restarted tree
 * answers proofs without reading the log before it. Smaller ones are recomputed from at most 16 tiles.
 */
export const STORED_HEIGHT = 12;

/** Subtree roots by height (its leaves: 2^height) and index (it covers leaves [index * 2^height, (index + 1) * 2^height)). */
export type Subtrees = Map<number, Hash[]>;

/** Reads the leaf hashes of leaves [start, start + count) (leaf i is the log's event at position i + 1). */
export type LeafReader = (start: number, count: number) => Promise<Hash[]>;

/**
 * An append-only Merkle tree held as a frontier (one pending root per level, so an append costs one leaf hash and,
 * amortised, one node hash) and the roots of every complete aligned subtree of TILE leaves or more (n / 128 hashes
 * for n leaves: 2.5 MB for ten million). Proofs need subtree hashes below a tile too; those are recomputed from
 * the tile's 256 leaf hashes, read back from the log, so memory stays small on a long log.
 */
export class MerkleTree {
  #size = 0;
  /** frontier[level]: the root of the perfect subtree of 2^level leaves still waiting for its right sibling. */
  readonly #frontier: (Hash | undefined)[] = [];
  /** levels[h][i]: the root of leaves [i * 2^(h+8), (i+1) * 2^(h+8)). Sparse below the size a tree was restored at. */
  readonly #levels: Hash[][] = [];
  /** Set while the stored subtree roots below the size a tree was restored at are being read (or rebuilt from the log). */
  #backfilling: Promise<void> | undefined;
  /** The leaf hashes of the last, incomplete tile. */
  #recent: Hash[] = [];
  /** Tiles read back recently: a proof walks one or two of them, a locate search a few in turn. */
  readonly #tiles = new Map<number, Hash[]>();
  readonly #read: LeafReader;

  constructor(read: LeafReader) {
    this.#read = read;
  }

  get size(): number {
    return this.#size;
  }

  append(leaf: Hash): void {
    this.#recent.push(leaf);
    let carry = leaf;
    let level = 0;
    while (this.#frontier[level] !== undefined) {
      carry = nodeHash(this.#frontier[level]!, carry);
      this.#frontier[level] = undefined;
      level++;
      if (level >= TILE_HEIGHT) (this.#levels[level - TILE_HEIGHT] ??= [])[(this.#size + 1) / 2 ** level - 1] = carry;
    }
    this.#frontier[level] = carry;
    this.#size++;
    if (this.#size % TILE === 0) {
      this.#remember(this.#size / TILE - 1, this.#recent);
      this.#recent = [];
    }
  }

  /**
   * The right edge: per level, the hex root of the subtree still waiting for its sibling, or '' where none waits.
   * With the size it is all the tree needs to go on appending, and its root.
   */
  frontier(): string[] {
    return Array.from(this.#frontier, (h) => h?.toString('hex') ?? '');
  }

  /**
   * A tree of `size` leaves from its right edge and the leaf hashes of its last, incomplete tile: appends and the
   * root work at once. The stored subtree roots below `size` come from `backfill`; until they are in, a proof that
   * needs one waits. Undefined when the right edge does not fold to `root` or does not end in `recent`: a right edge
   * that is not the log's is never taken.
   */
  static restore(read: LeafReader, size: number, frontier: readonly string[], recent: Hash[], root: Hash): MerkleTree | undefined {
    if (recent.length !== size % TILE) return undefined;
    const tree = new MerkleTree(read);
    tree.#size = size;
    frontier.forEach((hex, level) => {
      tree.#frontier[level] = hex === '' ? undefined : Buffer.from(hex, 'hex');
    });
    tree.#recent = recent;
    // The last tile's leaves split into the perfect subtrees of size's low bits, largest first: the edge's lower levels.
    let at = 0;
    for (let h = TILE_HEIGHT - 1; h >= 0; h--) {
      const pending = tree.#frontier[h];
      if (Math.floor(size / 2 ** h) % 2 === 0) {
        if (pending) return undefined;
        continue;
      }
      if (!pending?.equals(rootOf(recent.slice(at, at + 2 ** h)))) return undefined;
      at += 2 ** h;
    }
    return tree.root().equals(root) ? tree : undefined;
  }

  /**
   * Takes in the subtree roots below the size this tree was restored at (stored, or rebuilt from the log), which
   * proofs wait for meanwhile.
   */
  backfill(loading: Promise<Subtrees>): Promise<void> {
    this.#backfilling = loading.then((subtrees) => {
      for (const [height, hashes] of subtrees) {
        if (height < TILE_HEIGHT) continue;
        const mine = (this.#levels[height - TILE_HEIGHT] ??= []);
        hashes.forEach((hash, i) => {
          mine[i] ??= hash;
        });
      }
      this.#backfilling = undefined;
    });
    return this.#backfilling;
  }

  /** Whether the subtree roots below the restored size are still being read or rebuilt. */
  get backfilling(): boolean {
    return this.#backfilling !== undefined;
  }

  /** Settles once the subtree roots below the restored size are in (at once for a tree that was not restored). */
  async backfilled(): Promise<void> {
    await this.#backfilling;
  }

  /** The stored-size subtree roots (STORED_HEIGHT and up) that end after leaf `from` and by the tree's size. */
  subtreesAfter(from: number): Subtrees {
    const out: Subtrees = new Map();
    for (let h = STORED_HEIGHT; 2 ** h <= this.#size; h++) {
      const level = this.#levels[h - TILE_HEIGHT] ?? [];
      const hashes: Hash[] = [];
      for (let i = Math.floor(from / 2 ** h); i < Math.floor(this.#size / 2 ** h); i++) {
        const hash = level[i];
        if (hash) hashes[i] = hash;
      }
      out.set(h, hashes);
    }
    return out;
  }

  /** The root of the whole tree, from the frontier. */
  root(): Hash {
    let root: Hash | undefined;
    for (const pending of this.#frontier) if (pending) root = root ? nodeHash(pending, root) : pending;
    return root ?? EMPTY_ROOT;
  }

  /** MTH of the leaves [lo, hi); every range the RFC's algorithms ask for starts at a multiple of its size rounded up. */
  readonly rangeHash = async (lo: number, hi: number): Promise<Hash> => {
    if (lo < 0 || hi > this.#size || lo >= hi) throw new RangeError(`no leaves [${lo}, ${hi}) in a tree of ${this.#size}`);
    const n = hi - lo;
    if (n >= TILE && isPowerOfTwo(n) && lo % n === 0) {
      const level = (this.#levels[Math.log2(n) - TILE_HEIGHT] ??= []);
      if (!level[lo / n] && n >= 2 ** STORED_HEIGHT && this.#backfilling) await this.#backfilling;
      // Below the stored height, a restored tree computes a subtree from its tiles the first time a proof needs it.
      level[lo / n] ??=
        n === TILE
          ? rootOf(await this.#tile(lo / TILE))
          : nodeHash(await this.rangeHash(lo, lo + n / 2), await this.rangeHash(lo + n / 2, hi));
      return level[lo / n]!;
    }
    if (n <= TILE && Math.floor(lo / TILE) === Math.floor((hi - 1) / TILE)) {
      const tile = await this.#tile(Math.floor(lo / TILE));
      return rootOf(tile.slice(lo % TILE, (lo % TILE) + n));
    }
    const k = split(n);
    return nodeHash(await this.rangeHash(lo, lo + k), await this.rangeHash(lo + k, hi));
  };

  /** The leaf hash at `index`. */
  async leaf(index: number): Promise<Hash> {
    return this.rangeHash(index, index + 1);
  }

  async #tile(t: number): Promise<Hash[]> {
    if ((t + 1) * TILE > this.#size) return this.#recent;
    const cached = this.#tiles.get(t);
    if (cached) return cached;
    const leaves = await this.#read(t * TILE, TILE);
    if (leaves.length !== TILE) throw new Error(`the log returned ${leaves.length} events for tile ${t}, expected ${TILE}`);
    this.#remember(t, leaves);
    return leaves;
  }

  #remember(t: number, leaves: Hash[]): void {
    this.#tiles.set(t, leaves);
    if (this.#tiles.size > 8) this.#tiles.delete(this.#tiles.keys().next().value!);
  }
}
