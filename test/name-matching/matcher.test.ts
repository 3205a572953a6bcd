import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createMatcher } from '../../src/name-matching/matcher.js';
import { compareNames, compareTokens } from '../../src/name-matching/compare.js';
import { normaliseName } from '../../src/name-matching/normalise.js';
import { blankEntry, type ListEntry, type ScreeningList } from '../../src/name-matching/records.js';
import { ADJUST } from '../../src/name-matching/score.js';

function list(name: string, type: 'pep' | 'sanction', entries: Partial<ListEntry>[]): ScreeningList {
  return {
    name,
    type,
    version: 'v1',
    contentHash: 'h',
    publishedAt: null,
    entries: entries.map((e, i) =>
      blankEntry({ _id: `${name}:${i}`, externalId: String(i), type, name: '', listName: name, listVersion: 'v1', ...e }),
    ),
  };
}

const sanctions = list('test-sanctions', 'sanction', [
  { name: 'PUTIN, Vladimir Vladimirovich', birth_date: '1952-10-07', countries: ['ru'], gender: 'male', entityType: 'Person' },
  { name: 'BIN LADIN, Usama bin Muhammad bin Awad', aliases: ['BIN LADEN, Osama'], birth_date: '1957', countries: ['sa'], gender: 'male' },
  { name: 'MAKHLUF, Rami', countries: ['sy'] },
  { name: 'BANCO NACIONAL DE CUBA', aliases: ['NATIONAL BANK OF CUBA'], entityType: 'Organization' },
  ...Array.from({ length: 15 }, (_, i) => ({ name: `KIM Jong ${String.fromCharCode(97 + i)}x`, countries: ['kp'] })),
]);
const peps = list('test-pep', 'pep', [
  { name: 'Vladimir Putin', positions: [{ title: 'President', startDate: '2012', endDate: null, _id: 'p' }] },
]);
const matcher = createMatcher([sanctions, peps]);

describe('matcher.screen', () => {
  it('finds exact, reordered, typo and glued names, with scores set', () => {
    const exact = matcher.screen({ name: 'Vladimir Putin' });
    expect(exact.sanction[0]).toMatchObject({ name: 'PUTIN, Vladimir Vladimirovich', listName: 'test-sanctions', listVersion: 'v1' });
    expect(exact.sanction[0]!.confidenceScore).toBeGreaterThanOrEqual(85);
    expect(exact.pep[0]).toMatchObject({ name: 'Vladimir Putin', searchScore: 100, confidenceScore: 100 });
    expect(matcher.screen({ name: 'Vladimir Vladimirovich Puttin' }).sanction[0]?.name).toBe('PUTIN, Vladimir Vladimirovich');
    expect(matcher.screen({ name: 'Osama bin Laden' }).sanction[0]?.name).toBe('BIN LADIN, Usama bin Muhammad bin Awad');
    expect(matcher.screen({ name: 'Ramimakhluf' }).sanction[0]?.name).toBe('MAKHLUF, Rami');
    expect(matcher.screen({ name: 'National Bank of Cuba Ltd' }).sanction[0]?.name).toBe('BANCO NACIONAL DE CUBA');
  });

  it('returns nothing for unrelated names and for names with no letters', () => {
    expect(matcher.screen({ name: 'Jane Austen' })).toEqual({ pep: [], sanction: [] });
    expect(matcher.screen({ name: '  --  ' })).toEqual({ pep: [], sanction: [] });
  });

  it('applies threshold to confidenceScore and limit per list type', () => {
    const loose = matcher.screen({ name: 'Kim Jong', threshold: 50, limit: 10 });
    expect(loose.sanction).toHaveLength(10);
    expect(loose.sanction.every((r) => r.confidenceScore >= 50)).toBe(true);
    const scores = loose.sanction.map((r) => r.confidenceScore);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(matcher.screen({ name: 'Kim Jong', threshold: 50, limit: 3 }).sanction).toHaveLength(3);
    expect(matcher.screen({ name: 'Kim Jong', threshold: 99 }).sanction).toHaveLength(0);
  });

  it('filters by list name and type', () => {
    expect(matcher.screen({ name: 'Vladimir Putin', lists: ['test-pep'] }).sanction).toEqual([]);
    expect(matcher.screen({ name: 'Vladimir Putin', types: ['sanction'] }).pep).toEqual([]);
  });

  it('adjusts the score by birth date, country and gender', () => {
    const base = matcher.screen({ name: 'Putin Vladimir', threshold: 0 }).sanction[0]!.confidenceScore;
    const at = (q: object): number => matcher.screen({ name: 'Putin Vladimir', threshold: 0, ...q }).sanction[0]!.confidenceScore;
    expect(at({ birthDate: '1952-10-07' })).toBe(Math.min(100, base + ADJUST.birthDateExact));
    expect(at({ birthDate: '1952' })).toBe(Math.min(100, base + ADJUST.birthYearMatch));
    expect(at({ birthDate: '1953-01-01' })).toBe(base);
    expect(at({ birthDate: '1980-01-01' })).toBe(base + ADJUST.birthYearMismatch);
    expect(at({ country: 'RU' })).toBe(Math.min(100, base + ADJUST.countryMatch));
    expect(at({ country: 'Russia' })).toBe(Math.min(100, base + ADJUST.countryMatch));
    expect(at({ country: 'ng' })).toBe(base + ADJUST.countryMismatch);
    expect(at({ gender: 'female' })).toBe(base + ADJUST.genderMismatch);
    expect(at({ gender: 'male' })).toBe(base);
    // A contradicting birth year takes an exact name match under the default threshold.
    expect(matcher.screen({ name: 'Vladimir Vladimirovich Putin', birthDate: '1990' }).sanction).toEqual([]);
  });

  it('keeps searchScore as the name-only score', () => {
    const r = matcher.screen({ name: 'Vladimir Vladimirovich Putin', country: 'ng' }).sanction[0]!;
    expect(r.searchScore).toBe(100);
    expect(r.confidenceScore).toBe(100 + ADJUST.countryMismatch);
  });
});

describe('matcher.bestScore', () => {
  it('is the best confidence on a list type, 0 when nothing is close', () => {
    expect(matcher.bestScore('Osama bin Laden', 'sanction')).toBe(100);
    expect(matcher.bestScore('Osama bin Laden', 'pep')).toBe(0);
    expect(matcher.bestScore('Jane Austen', 'sanction')).toBe(0);
  });

  it('answers a name it has seen from its memo exactly as a search would', () => {
    const listed = fc.constantFrom('Osama bin Laden', 'PUTIN Vladimir', 'Rami Makhlouf', 'Kim Jong ax', 'National Bank of Cuba');
    const names = fc.array(fc.oneof(listed, fc.stringMatching(/^[A-Za-z]{2,9}( [A-Za-z]{2,9}){0,2}$/)), { minLength: 1, maxLength: 30 });
    fc.assert(
      fc.property(names, fc.constantFrom('sanction' as const, 'pep' as const), (batch, type) => {
        const warm = createMatcher([sanctions, peps]);
        for (const name of [...batch, ...batch]) {
          const best = matcher.screen({ name, types: [type], threshold: 50, limit: 1 })[type][0]?.confidenceScore ?? 0;
          expect(warm.bestScore(name, type)).toBe(best);
        }
      }),
      { numRuns: 40 },
    );
  });
});

describe('compareNames laws', () => {
  const word = fc.stringMatching(/^[a-z]{2,9}$/);
  const name = fc.array(word, { minLength: 1, maxLength: 4 });

  it('scores within [0, 100], and 100 for identical names', () => {
    fc.assert(
      fc.property(name, name, (a, b) => {
        const s = compareNames(a.join(' '), b.join(' '));
        expect(s).toBeGreaterThanOrEqual(0);
        expect(s).toBeLessThanOrEqual(100 + 1e-9);
        expect(compareNames(a.join(' '), a.join(' '))).toBeCloseTo(100, 9);
      }),
    );
  });

  // Normalisation is positional by design ("np" is a legal form at the end of a name, a token at its start), so
  // the law holds for the tokens it keeps: the scorer aligns them order-free.
  const shuffle = (tokens: readonly string[], seed: number) =>
    [...tokens].sort((x, y) => ((x.charCodeAt(0) * seed) % 7) - ((y.charCodeAt(0) * seed) % 7));

  it('does not depend on the order of either name’s normalised tokens', () => {
    fc.assert(
      fc.property(name, name, fc.integer(), (a, b, seed) => {
        const q = normaliseName(a.join(' '));
        const c = normaliseName(b.join(' '));
        expect(compareTokens(shuffle(q, seed), c)).toBeCloseTo(compareTokens(q, c), 9);
        expect(compareTokens(q, shuffle(c, seed))).toBeCloseTo(compareTokens(q, c), 9);
      }),
    );
  });

  it('does not depend on the order of a name’s tokens when normalisation keeps them all', () => {
    fc.assert(
      fc.property(name, name, fc.integer(), (a, b, seed) => {
        const shuffled = shuffle(a, seed);
        fc.pre(normaliseName(a.join(' ')).length === a.length && normaliseName(shuffled.join(' ')).length === a.length);
        expect(compareNames(shuffled.join(' '), b.join(' '))).toBeCloseTo(compareNames(a.join(' '), b.join(' ')), 9);
      }),
      { examples: [[['np', 'du'], ['duaa'], -841010480]] },
    );
  });

  it('strips a trailing legal form only at the end of a name', () => {
    expect(normaliseName('du kim np')).toEqual(['du', 'kim']);
    expect(normaliseName('np du kim')).toEqual(['np', 'du', 'kim']);
    // A form of two letters after a single word may be a surname ("Thomas Sá"): kept.
    expect(normaliseName('du np')).toEqual(['du', 'np']);
    expect(normaliseName('du kim ltd')).toEqual(['du', 'kim']);
    expect(normaliseName('ltd du kim')).toEqual(['ltd', 'du', 'kim']);
  });

  it('is symmetric for names with as many tokens', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 4 })
          .chain((n) => fc.tuple(fc.array(word, { minLength: n, maxLength: n }), fc.array(word, { minLength: n, maxLength: n }))),
        ([a, b]) => {
          // Tokens are counted after normalisation, which drops titles: "dr aa aa" has two, not three.
          fc.pre(normaliseName(a.join(' ')).length === normaliseName(b.join(' ')).length);
          expect(compareNames(a.join(' '), b.join(' '))).toBeCloseTo(compareNames(b.join(' '), a.join(' ')), 6);
        },
      ),
      {
        examples: [
          [
            [
              ['dr', 'aa', 'kaa'],
              ['kab', 'aa'],
            ],
          ],
        ],
      },
    );
  });
});
