/** Other European romanisations of Slavic names, read in the English spelling the lists use. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { englishSpelling } from '../../src/name-matching/spelling.js';

describe('englishSpelling', () => {
  it.each([
    ['wladimirowitsch', 'vladimirovich'],
    ['wladimirowicz', 'vladimirovich'],
    ['wladimirowitsj', 'vladimirovich'],
    ['vladimirovitch', 'vladimirovich'],
    ['vladimirovitj', 'vladimirovich'],
    ['vlagyimirovics', 'vladimirovich'],
    ['poetin', 'putin'],
    ['poutine', 'putin'],
    ['putyin', 'putin'],
    ['vladimiras', 'vladimir'],
    ['putins', 'putin'],
    ['bhladimir', 'vladimir'],
  ])('reads %s as %s', (written, english) => {
    expect(englishSpelling(written)).toBe(english);
  });

  it('leaves English spellings and short tokens alone', () => {
    for (const token of ['vladimir', 'putin', 'thomas', 'james', 'mohammed', 'hassan', 'charles', 'ali', 'ivan'])
      expect(englishSpelling(token)).toBeUndefined();
  });

  it('only rewrites: never a longer token, never anything but letters, never the token itself', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z]{1,14}$/), (token) => {
        const english = englishSpelling(token);
        if (english === undefined) return;
        expect(english).toMatch(/^[a-z]+$/);
        expect(english.length).toBeLessThanOrEqual(token.length);
        expect(english).not.toBe(token);
      }),
    );
  });
});
