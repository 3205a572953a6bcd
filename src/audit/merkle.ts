// The Merkle tree hash of RFC 9162 (Certificate Transparency 2.0, section 2.1): leaves and nodes are hashed with
// distinct prefixes so that a leaf can never pass for a node. Proofs are made and checked by the RFC's algorithms.
import * as crypto from 'node:crypto';

export type Hash = Buffer;

const LEAF = Buffer.from([0]);
const NODE = Buffer.from([1]);

const sha256 = (parts: readonly Buffer[]): Hash => crypto.createHash('sha256').update(Buffer.concat(parts)).digest();

export const leafHash = (leaf: Buffer): Hash => sha256([LEAF, leaf]);
export const nodeHash = (left: Hash, right: Hash): Hash => sha256([NODE, left, right]);
/** The hash of the empty tree. */
export const EMPTY_ROOT: Hash = crypto.createHash('sha256').digest();

/** The largest power of two smaller than n (n > 1): where the RFC splits a range. */
export function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

export const isPowerOfTwo = (n: number): boolean => n > 0 && 2 ** Math.round(Math.log2(n)) === n;

/** MTH of a list of leaf hashes, computed naively; the reference the incremental tree is tested against. */
export function rootOf(leaves: readonly Hash[]): Hash {
  if (leaves.length === 0) return EMPTY_ROOT;
  if (leaves.length === 1) return leaves[0]!;
  const k = split(leaves.length);
  return nodeHash(rootOf(leaves.slice(0, k)), rootOf(leaves.slice(k)));
}

/** The hash of the leaves [lo, hi), from wherever the tree keeps them. */
export type RangeHash = (lo: number, hi: number) => Promise<Hash>;

/** PATH(m, D[lo:hi]) of RFC 9162 2.1.3.1: the audit path of leaf m, as the siblings from the leaf up. */
export async function inclusionPath(m: number, lo: number, hi: number, range: RangeHash): Promise<Hash[]> {
  const n = hi - lo;
  if (n <= 1) return [];
  const k = split(n);
  if (m < k) return [...(await inclusionPath(m, lo, lo + k, range)), await range(lo + k, hi)];
  return [...(await inclusionPath(m - k, lo + k, hi, range)), await range(lo, lo + k)];
}

/** PROOF(m, D[0:n]) of RFC 9162 2.1.4.1: proves that the tree of the first m leaves is a prefix of the tree of n. */
export async function consistencyProof(m: number, n: number, range: RangeHash): Promise<Hash[]> {
  if (m <= 0 || m >= n) return [];
  return subproof(m, 0, n, true, range);
}

async function subproof(m: number, lo: number, hi: number, whole: boolean, range: RangeHash): Promise<Hash[]> {
  const n = hi - lo;
  if (m === n) return whole ? [] : [await range(lo, hi)];
  const k = split(n);
  if (m <= k) return [...(await subproof(m, lo, lo + k, whole, range)), await range(lo + k, hi)];
  return [...(await subproof(m - k, lo + k, hi, false, range)), await range(lo, lo + k)];
}

/** RFC 9162 2.1.3.2: does the audit path lead from the leaf hash at `index` to `root` in a tree of `size`? */
export function verifyInclusion(index: number, size: number, leaf: Hash, path: readonly Hash[], root: Hash): boolean {
  if (index < 0 || index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of path) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && r.equals(root);
}

/** RFC 9162 2.1.4.2: does the proof show that the tree (size1, root1) is a prefix of the tree (size2, root2)? */
export function verifyConsistency(size1: number, size2: number, root1: Hash, root2: Hash, proof: readonly Hash[]): boolean {
  if (size1 > size2) return false;
  if (size1 === size2) return proof.length === 0 && root1.equals(root2);
  if (size1 === 0) return proof.length === 0;
  let path = [...proof];
  // A first tree that is a complete subtree is its own first node; the RFC prepends it.
  if (isPowerOfTwo(size1)) path = [root1, ...path];
  if (path.length === 0) return false;
  let fn = size1 - 1;
  let sn = size2 - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = path[0]!;
  let sr = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && fr.equals(root1) && sr.equals(root2);
}

/**
 * The compact range of [0, size): the roots of the perfect subtrees the size's binary digits cut the leaves into,
 * largest (leftmost) first. Their right-to-left fold is the tree's root, and each is a subtree hash an auditor can
 * keep to narrow down where a later log differs.
 */
export function compactRangeSizes(size: number): { start: number; size: number }[] {
  const out: { start: number; size: number }[] = [];
  let start = 0;
  for (let bit = 2 ** Math.floor(Math.log2(Math.max(size, 1))); bit >= 1; bit /= 2) {
    if (Math.floor(size / bit) % 2 === 1) {
      out.push({ start, size: bit });
      start += bit;
    }
  }
  return out;
}

export const foldRange = (hashes: readonly Hash[]): Hash =>
  hashes.length === 0 ? EMPTY_ROOT : hashes.reduceRight((right, left) => nodeHash(left, right));
