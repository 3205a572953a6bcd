import { EMPTY_ROOT, isPowerOfTwo, nodeHash, rootOf, split, type Hash } from './merkle.js';

/** Leaves per tile: subtrees this big and bigger are kept in memory; smaller ones are recomputed from their tile. */
export const TILE = 256;
const TILE_HEIGHT = 8;

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
  /** levels[h][i]: the root of leaves [i * 2^(h+8), (i+1) * 2^(h+8)). Sparse while a restored tree back-fills. */
  readonly #levels: Hash[][] = [];
  /** Set while the subtree roots below the size a tree was restored at are being rebuilt from the log. */
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
   * root work at once. The roots of the complete subtrees below `size` come from `backfill`; until they are in,
   * a proof that needs one waits.
   */
  static restore(read: LeafReader, size: number, frontier: readonly string[], recent: Hash[]): MerkleTree {
    if (recent.length !== size % TILE) throw new Error(`a restored tree of ${size} leaves needs its last ${size % TILE} leaf hashes`);
    const tree = new MerkleTree(read);
    tree.#size = size;
    frontier.forEach((hex, level) => {
      tree.#frontier[level] = hex === '' ? undefined : Buffer.from(hex, 'hex');
    });
    tree.#recent = recent;
    return tree;
  }

  /**
   * Takes in the subtree roots of `prefix` (the same leaves, rebuilt from the log) that this restored tree lacks;
   * `building` is that rebuild, which proofs wait for meanwhile.
   */
  backfill(building: Promise<MerkleTree>): Promise<void> {
    this.#backfilling = building.then((prefix) => {
      prefix.#levels.forEach((level, h) => {
        const mine = (this.#levels[h] ??= []);
        level.forEach((hash, i) => {
          mine[i] ??= hash;
        });
      });
      this.#backfilling = undefined;
    });
    return this.#backfilling;
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
      const kept = () => this.#levels[Math.log2(n) - TILE_HEIGHT]?.[lo / n];
      if (!kept() && this.#backfilling) await this.#backfilling;
      return kept()!;
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
