/**
 * Query token → similar vocabulary tokens. Candidates come from the exact token, shared trigrams and
 * shared phonetic keys; only those are compared with Jaro-Winkler.
 */
import { LRUCache } from 'lru-cache';
import { jaroWinkler } from './jaro-winkler.js';
import type { NameIndex } from './name-index.js';
import { nameParts } from './name-parts.js';
import { trigrams } from './name-index.js';
import { phoneticKeys } from './phonetic.js';
import { MIN_TOKEN_SIMILARITY, PHONETIC_SIMILARITY, tokenContribution } from './score.js';
import { skeleton } from './skeleton.js';
import { englishSpelling } from './spelling.js';
import { particleCode, sameParticleKind } from './particles.js';

/**
 * Credited to a vocabulary token with the same consonant skeleton as a token written in Arabic or Hebrew script:
 * the transliteration lacks the vowels, so its spelling cannot be compared letter by letter.
 */
const SKELETON_SIMILARITY = 0.98;
/** Another spelling of the same name part in rigour's table (name-parts.ts) is the same part: rigour lists it as such. */
const NAME_PART_SIMILARITY = 1;

export interface QueryToken {
  text: string;
  /** Rare-token weight: that of the closest vocabulary token, or the maximum for an unknown token. */
  weight: number;
  /** Vocabulary id → contribution f(similarity) > 0. */
  similar: SimilarTokens;
  /**
   * The names containing a similar token, and what this token adds to each one's upper bound (weight ×
   * contribution, per similar token the name contains). The postings of its similar tokens merged once: a short
   * or common token ("ada", "muhammad") has dozens to a hundred and more similar tokens, and walking their posting
   * arrays, scattered over the heap, for every new name cost the instant path 46 to 118 µs a name once other work
   * had pushed them out of the CPU's caches (31 to 67 µs merged).
   */
  names: Int32Array;
  adds: Float64Array;
  /** A single letter: also stands for any given name it begins (matcher.ts). */
  initial: boolean;
  /** Its particle code (particles.ts), 0 for a name. */
  particle: number;
}

/**
 * A query token's similar vocabulary tokens, ids ascending, each with its contribution. Two typed arrays rather than
 * a Map: a cached token outlives the scavenges after it, which copy a Map of a hundred entries and its boxed numbers
 * (~5 KB) and grow the old generation with it, while the arrays' contents live outside the heap.
 */
export class SimilarTokens {
  constructor(
    readonly ids: Int32Array,
    readonly contributions: Float64Array,
  ) {}

  static from(map: ReadonlyMap<number, number>): SimilarTokens {
    const ids = Int32Array.from(map.keys()).sort();
    const contributions = new Float64Array(ids.length);
    for (let k = 0; k < ids.length; k++) contributions[k] = map.get(ids[k]!)!;
    return new SimilarTokens(ids, contributions);
  }

  /** The contribution of vocabulary token `id`; undefined when it is not similar. */
  get(id: number): number | undefined {
    const { ids } = this;
    let lo = 0;
    let hi = ids.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const at = ids[mid]!;
      if (at === id) return this.contributions[mid];
      if (at < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  has(id: number): boolean {
    return this.get(id) !== undefined;
  }
}

const INITIAL = /^[a-z]$/;
const INITIAL_WEIGHT = Math.log(26);
/**
 * What a match in the English spelling of a token (spelling.ts) is worth against one of the token as written: enough
 * for "Wladimir Putin" to find PUTIN, Vladimir at the default threshold, and no more.
 */
const SPELLING_CREDIT = 0.96;

/** Share of a query token's trigrams a vocabulary token must have to be compared at all. */
const MIN_SHARED_GRAMS = 0.4;
/** Tokens whose lengths differ more than this cannot reach MIN_TOKEN_SIMILARITY except by phonetics. */
const MAX_LENGTH_RATIO = 1.6;

/**
 * Query tokens repeat (given names, "muhammad", "ali"), and a token's matches depend only on the index, so they
 * are kept. Least recently used tokens go first: a cache dropped whole when full makes every query after it compute
 * its tokens again, doubling the cost of a query for seconds (at 2,000 queries a second, a backlog of 30–60 ms).
 * Full, over the bundled lists, it holds ~35 MB of merged postings (137 names a token on average, 12 bytes each).
 */
const CACHE_SIZE = 20_000;

export class TokenMatcher {
  private readonly shared: Uint16Array;
  private readonly touched: number[] = [];
  /** Per name, what the token being computed adds; 0 for names it does not reach (every add is positive). */
  private readonly adds: Float64Array;
  private readonly cache = new LRUCache<string, QueryToken>({ max: CACHE_SIZE });
  /** Per vocabulary token, its particle code (particles.ts), 0 for a name. */
  readonly particles: Uint8Array;
  private readonly particleIds: number[] = [];

  constructor(private readonly index: NameIndex) {
    this.shared = new Uint16Array(index.vocab.length);
    this.adds = new Float64Array(index.nameEntry.length);
    this.particles = Uint8Array.from(index.vocab, particleCode);
    for (let id = 0; id < this.particles.length; id++) if (this.particles[id]) this.particleIds.push(id);
  }

  /** `abjad`: the token was transliterated from a script without written vowels, so consonant skeletons match too. */
  match(text: string, abjad = false): QueryToken {
    const key = abjad ? `\u0001${text}` : text;
    let token = this.cache.get(key);
    if (!token) {
      token = this.compute(text, abjad);
      this.cache.set(key, token);
    }
    return token;
  }

  private compute(text: string, abjad: boolean): QueryToken {
    const particle = particleCode(text);
    if (particle) return this.particle(text, particle);
    const { index, particles } = this;
    const similar = new Map<number, number>();
    let bestSimilarity = 0;
    let weight = index.maxWeight;
    const consider = (id: number, similarity: number): void => {
      // Most candidates sharing trigrams are not similar enough to count: they need no look-up in `similar`. A
      // particle pairs with particles only ("abdi" is a name, not "abd").
      if (similarity < MIN_TOKEN_SIMILARITY || particles[id]) return;
      const c = tokenContribution(similarity);
      if (c <= (similar.get(id) ?? 0)) return;
      similar.set(id, c);
      if (similarity > bestSimilarity) {
        bestSimilarity = similarity;
        weight = index.weights[id]!;
      }
    };
    this.lookUp(text, 1, consider);
    if (abjad) {
      const key = skeleton(text);
      const ids = key.length >= 3 ? index.skeletonTokens.get(key) : undefined;
      if (ids) for (let k = 0; k < ids.length; k++) consider(ids[k]!, SKELETON_SIMILARITY);
    }
    for (const part of nameParts().get(text) ?? []) {
      const id = index.vocabIds.get(part);
      if (id !== undefined) consider(id, NAME_PART_SIMILARITY);
    }
    const english = englishSpelling(text);
    if (english) this.lookUp(english, SPELLING_CREDIT, consider);
    const initial = INITIAL.test(text);
    // One letter tells one of 26 apart, whatever the rarity of the initials written in listed names.
    if (initial) weight = Math.min(weight, INITIAL_WEIGHT);
    const { names, adds } = this.merge(similar, weight);
    return { text, weight, similar: SimilarTokens.from(similar), names, adds, initial, particle: 0 };
  }

  /**
   * A particle is similar to every particle of its kind (alignScore decides which it pairs with) and weighs what the
   * commonest of them does: "Abdul" at the end of a query is as common as the prefix "abd".
   */
  private particle(text: string, particle: number): QueryToken {
    const { index } = this;
    const similar = new Map<number, number>();
    let weight = index.maxWeight;
    for (const id of this.particleIds)
      if (sameParticleKind(this.particles[id]!, particle)) {
        similar.set(id, 1);
        weight = Math.min(weight, index.weights[id]!);
      }
    const { names, adds } = this.merge(similar, weight);
    return { text, weight, similar: SimilarTokens.from(similar), names, adds, initial: false, particle };
  }

  /** Hands `consider` every vocabulary token similar to `text`: the same, sharing trigrams, or sounding alike. */
  private lookUp(text: string, credit: number, consider: (id: number, similarity: number) => void): void {
    const { index, shared, touched } = this;
    const exact = index.vocabIds.get(text);
    if (exact !== undefined) consider(exact, credit);
    const grams = trigrams(text);
    const need = Math.max(1, Math.round(grams.length * MIN_SHARED_GRAMS));
    for (const g of new Set(grams)) {
      const ids = index.gramTokens.get(g);
      if (!ids) continue;
      for (let k = 0; k < ids.length; k++) {
        const id = ids[k]!;
        if (shared[id]!++ === 0) touched.push(id);
      }
    }
    const minLength = text.length / MAX_LENGTH_RATIO;
    const maxLength = text.length * MAX_LENGTH_RATIO;
    for (const id of touched) {
      const length = index.vocab[id]!.length;
      if (shared[id]! >= need && length >= minLength && length <= maxLength && id !== exact)
        consider(id, credit * jaroWinkler(text, index.vocab[id]!));
      shared[id] = 0;
    }
    touched.length = 0;
    for (const key of phoneticKeys(text)) {
      const ids = index.phoneticTokens.get(key);
      if (ids)
        for (let k = 0; k < ids.length; k++) {
          const id = ids[k]!;
          if (id !== exact) consider(id, credit * Math.max(PHONETIC_SIMILARITY, jaroWinkler(text, index.vocab[id]!)));
        }
    }
  }

  private merge(similar: Map<number, number>, weight: number): { names: Int32Array; adds: Float64Array } {
    const { index, adds } = this;
    const reached: number[] = [];
    for (const [id, contribution] of similar) {
      const add = weight * contribution;
      for (let k = index.tokenNameStart[id]!, end = index.tokenNameStart[id + 1]!; k < end; k++) {
        const n = index.tokenNameIds[k]!;
        if (adds[n] === 0) reached.push(n);
        adds[n]! += add;
      }
    }
    const merged = { names: Int32Array.from(reached), adds: new Float64Array(reached.length) };
    for (let k = 0; k < reached.length; k++) {
      merged.adds[k] = adds[reached[k]!]!;
      adds[reached[k]!] = 0;
    }
    return merged;
  }
}
