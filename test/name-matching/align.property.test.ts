// alignScore aligns best pair first with working arrays it reuses. Its law: it scores exactly like the plain
// version, which sorts an array of pair objects (stable, by value, then the query token's text, then the
// candidate position) and takes each pair whose tokens are both still free.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { alignScore, unmatchedPenalty } from '../../src/name-matching/score.js';

interface Sides {
  queryWeights: number[];
  queryTexts: string[];
  candidateWeights: number[];
  contributions: number[][];
  person: boolean;
}

function reference({ queryWeights, queryTexts, candidateWeights, contributions, person }: Sides): number {
  const pairs: { value: number; i: number; j: number }[] = [];
  let queryWeight = 0;
  queryWeights.forEach((w, i) => {
    queryWeight += w;
    candidateWeights.forEach((_, j) => {
      const c = contributions[i]![j]!;
      if (c > 0) pairs.push({ value: c * w, i, j });
    });
  });
  if (!pairs.length || queryWeight <= 0) return 0;
  const key = (i: number) => queryTexts[i]!;
  pairs.sort((a, b) => b.value - a.value || (key(a.i) < key(b.i) ? -1 : key(a.i) > key(b.i) ? 1 : a.j - b.j));
  const usedQ = new Set<number>();
  const usedC = new Set<number>();
  let matched = 0;
  for (const p of pairs) {
    if (usedQ.has(p.i) || usedC.has(p.j)) continue;
    usedQ.add(p.i);
    usedC.add(p.j);
    matched += p.value;
  }
  const unmatched = candidateWeights.reduce((sum, w, j) => (usedC.has(j) ? sum : sum + w), 0);
  return matched / (queryWeight + unmatchedPenalty(unmatched, queryWeight, person));
}

// Few distinct weights, texts and contributions, so that ties are common; up to 24 × 24 tokens, past the
// working arrays' first sizes (64 pairs, 16 flags), so that growing them is exercised too.
const weight = fc.constantFrom(0.5, 1, 2, 3.25);
const sides = fc.tuple(fc.integer({ min: 1, max: 24 }), fc.integer({ min: 1, max: 24 })).chain(([q, c]) =>
  fc.record({
    queryWeights: fc.array(weight, { minLength: q, maxLength: q }),
    queryTexts: fc.array(fc.constantFrom('ali', 'hassan', 'ngozi', 'okafor'), { minLength: q, maxLength: q }),
    candidateWeights: fc.array(weight, { minLength: c, maxLength: c }),
    contributions: fc.array(fc.array(fc.constantFrom(0, 0, 0.64, 0.81, 1), { minLength: c, maxLength: c }), { minLength: q, maxLength: q }),
    person: fc.boolean(),
  }),
);

describe('alignScore', () => {
  it('scores like a stable sort of pair objects followed by the greedy pass', () => {
    fc.assert(
      fc.property(fc.array(sides, { minLength: 1, maxLength: 4 }), (cases) => {
        // Several alignments in a row: the working arrays must carry nothing from one to the next.
        for (const s of cases) {
          const got = alignScore(
            { count: s.queryWeights.length, weight: (i) => s.queryWeights[i]!, tieKey: (i) => s.queryTexts[i]! },
            { count: s.candidateWeights.length, weight: (j) => s.candidateWeights[j]!, person: s.person },
            (i, j) => s.contributions[i]![j]!,
          );
          expect(got).toBe(reference(s));
        }
      }),
      { numRuns: 300 },
    );
  });
});
