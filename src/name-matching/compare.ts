/**
 * Direct comparison of two names without an index: every token weighs the same, and particles are tokens like the
 * others (order-free, as the scoring laws' tests state). Used by the benchmark's full-scan baseline and by those
 * tests; the matcher uses the indexed path.
 */
import { jaroWinkler } from './jaro-winkler.js';
import { gluedKeys } from './name-index.js';
import { normaliseName } from './normalise.js';
import { phoneticKeys } from './phonetic.js';
import { GLUED_SIMILARITY, PHONETIC_SIMILARITY, alignScore, tokenContribution } from './score.js';

export function tokenSimilarity(a: string, b: string): number {
  const jw = jaroWinkler(a, b);
  if (jw >= PHONETIC_SIMILARITY) return jw;
  const keys = phoneticKeys(b);
  return phoneticKeys(a).some((k) => keys.includes(k)) ? PHONETIC_SIMILARITY : jw;
}

/** Name similarity 0–100 of two already-normalised token lists. */
export function compareTokens(
  q: readonly string[],
  c: readonly string[],
  similarity: (a: string, b: string) => number = tokenSimilarity,
): number {
  if (!q.length || !c.length) return 0;
  const one = (): number => 1;
  let score = alignScore({ count: q.length, weight: one, tieKey: (i) => q[i]! }, { count: c.length, weight: one, person: true }, (i, j) =>
    tokenContribution(similarity(q[i]!, c[j]!)),
  );
  const cKeys = gluedKeys(c);
  if (gluedKeys(q).some((k) => cKeys.includes(k))) score = Math.max(score, GLUED_SIMILARITY);
  return score * 100;
}

export function compareNames(query: string, candidate: string): number {
  return compareTokens(normaliseName(query), normaliseName(candidate));
}
