/**
 * Query token → similar vocabulary tokens. Candidates come from the exact token, shared trigrams and
 * shared phonetic keys; only those are compared with Jaro-Winkler.
 */
import { jaroWinkler } from './jaro-winkler.js';
import type { NameIndex } from './name-index.js';
import { trigrams } from './name-index.js';
import { phoneticKeys } from './phonetic.js';
import { PHONETIC_SIMILARITY, tokenContribution } from './score.js';

export interface QueryToken {
  text: string;
  /** Rare-token weight: that of the closest vocabulary token, or the maximum for an unknown token. */
  weight: number;
  /** Vocabulary id → contribution f(similarity) > 0. */
  similar: Map<number, number>;
  /**
   * The same pairs in two arrays, for the matcher's walk over postings: iterating the map allocates an entry
   * array per pair, dozens per query token.
   */
  similarIds: Int32Array;
  similarContributions: Float64Array;
}

/** Share of a query token's trigrams a vocabulary token must have to be compared at all. */
const MIN_SHARED_GRAMS = 0.4;
/** Tokens whose lengths differ more than this cannot reach MIN_TOKEN_SIMILARITY except by phonetics. */
const MAX_LENGTH_RATIO = 1.6;

/**
 * Query tokens repeat (given names, "muhammad", "ali"), and a token's matches depend only on the
 * index, so they are kept; the cache is dropped whole when full, which is simpler than LRU and as good
 * for a working set this size.
 */
const CACHE_SIZE = 20_000;

export class TokenMatcher {
  private readonly shared: Uint16Array;
  private readonly touched: number[] = [];
  private readonly cache = new Map<string, QueryToken>();

  constructor(private readonly index: NameIndex) {
    this.shared = new Uint16Array(index.vocab.length);
  }

  match(text: string): QueryToken {
    let token = this.cache.get(text);
    if (!token) {
      if (this.cache.size >= CACHE_SIZE) this.cache.clear();
      token = this.compute(text);
      this.cache.set(text, token);
    }
    return token;
  }

  private compute(text: string): QueryToken {
    const { index, shared, touched } = this;
    const similar = new Map<number, number>();
    let bestSimilarity = 0;
    let weight = index.maxWeight;
    const consider = (id: number, floor: number): void => {
      if (similar.has(id)) return;
      const s = Math.max(floor, jaroWinkler(text, index.vocab[id]!));
      const c = tokenContribution(s);
      if (c <= 0) return;
      similar.set(id, c);
      if (s > bestSimilarity) {
        bestSimilarity = s;
        weight = index.weights[id]!;
      }
    };

    const exact = index.vocabIds.get(text);
    if (exact !== undefined) consider(exact, 1);

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
      if (shared[id]! >= need && length >= minLength && length <= maxLength) consider(id, 0);
      shared[id] = 0;
    }
    touched.length = 0;

    for (const key of phoneticKeys(text)) {
      const ids = index.phoneticTokens.get(key);
      if (ids) for (let k = 0; k < ids.length; k++) consider(ids[k]!, PHONETIC_SIMILARITY);
    }
    return {
      text,
      weight,
      similar,
      similarIds: Int32Array.from(similar.keys()),
      similarContributions: Float64Array.from(similar.values()),
    };
  }
}
