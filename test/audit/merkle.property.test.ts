import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compactRangeSizes,
  consistencyProof,
  foldRange,
  inclusionPath,
  leafHash,
  rootOf,
  verifyConsistency,
  verifyInclusion,
  type Hash,
} from '../../src/audit/merkle.js';
import { MerkleTree, TILE } from '../../src/audit/tree.js';

const leaves = (n: number, seed: number): Hash[] => Array.from({ length: n }, (_, i) => leafHash(Buffer.from(`${seed}:${i}`)));

/** A tree over `list`, whose tiles are read back from the list as the log tree reads them from the store. */
function treeOf(list: readonly Hash[]): MerkleTree {
  const tree = new MerkleTree(async (start, count) => list.slice(start, start + count));
  for (const leaf of list) tree.append(leaf);
  return tree;
}

/** Sizes around the tile boundary matter most: below, at and across it the tree changes where it keeps hashes. */
const size = fc.oneof(fc.integer({ min: 1, max: 40 }), fc.integer({ min: TILE - 3, max: 3 * TILE + 5 }));
const params = { seed: 30, numRuns: 40 };

describe('Merkle tree (RFC 9162) against a naive recomputation', () => {
  it('has the empty-tree root of SHA-256 of nothing, and a one-leaf root equal to the leaf', () => {
    expect(treeOf([]).root().toString('hex')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    const [one] = leaves(1, 0);
    expect(treeOf([one!]).root().equals(one!)).toBe(true);
  });

  it('keeps the root of every prefix equal to the naive MTH, and every range hash too', async () => {
    await fc.assert(
      fc.asyncProperty(size, fc.integer(), async (n, seed) => {
        const list = leaves(n, seed);
        const tree = new MerkleTree(async (start, count) => list.slice(start, start + count));
        const step = Math.max(1, Math.floor(n / 13));
        for (let i = 0; i < n; i++) {
          tree.append(list[i]!);
          if (i % step === 0 || i === n - 1) expect(tree.root().equals(rootOf(list.slice(0, i + 1)))).toBe(true);
        }
        for (let m = 1; m <= n; m += Math.max(1, Math.floor(n / 17))) {
          expect((await tree.rangeHash(0, m)).equals(rootOf(list.slice(0, m)))).toBe(true);
        }
      }),
      params,
    );
  });

  it('gives inclusion proofs that verify for the right leaf and fail for any other', async () => {
    await fc.assert(
      fc.asyncProperty(size, fc.integer(), fc.nat(), async (n, seed, pick) => {
        const list = leaves(n, seed);
        const tree = treeOf(list);
        const index = pick % n;
        const root = rootOf(list);
        const path = await inclusionPath(index, 0, n, tree.rangeHash);
        expect(verifyInclusion(index, n, list[index]!, path, root)).toBe(true);
        expect(verifyInclusion(index, n, leafHash(Buffer.from('tampered')), path, root)).toBe(false);
        if (n > 1) expect(verifyInclusion((index + 1) % n, n, list[index]!, path, root)).toBe(false);
      }),
      params,
    );
  });

  it('gives consistency proofs that verify between any two sizes and fail when the old tree was different', async () => {
    await fc.assert(
      fc.asyncProperty(size, fc.integer(), fc.nat(), fc.nat(), async (n, seed, a, b) => {
        const list = leaves(n, seed);
        const tree = treeOf(list);
        const m = 1 + (a % n);
        const proof = await consistencyProof(m, n, tree.rangeHash);
        expect(verifyConsistency(m, n, rootOf(list.slice(0, m)), rootOf(list), proof)).toBe(true);
        // The same first m leaves but one of them rewritten: the old root no longer fits the new tree.
        const rewritten = [...list.slice(0, m)];
        rewritten[b % m] = leafHash(Buffer.from('rewritten'));
        expect(verifyConsistency(m, n, rootOf(rewritten), rootOf(list), proof)).toBe(false);
      }),
      params,
    );
  });

  it('cuts a tree into a compact range that folds to its root', () => {
    fc.assert(
      fc.property(size, fc.integer(), (n, seed) => {
        const list = leaves(n, seed);
        const range = compactRangeSizes(n).map((r) => rootOf(list.slice(r.start, r.start + r.size)));
        expect(foldRange(range).equals(rootOf(list))).toBe(true);
      }),
      params,
    );
  });
});
