import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { jaroWinkler } from '../../src/name-matching/jaro-winkler.js';
import { readCsv } from '../../src/name-matching/sources/csv-reader.js';

describe('jaroWinkler', () => {
  it.each([
    ['martha', 'marhta', 0.9611],
    ['dwayne', 'duane', 0.84],
    ['dixon', 'dicksonx', 0.8133],
    ['crate', 'trace', 0.7333],
    ['abc', 'abc', 1],
    ['abc', 'xyz', 0],
    ['', '', 0],
  ])('%s ~ %s = %d (Winkler 1990 reference values)', (a, b, expected) => {
    expect(jaroWinkler(a, b)).toBeCloseTo(expected, 3);
  });

  /**
   * Watchman's BestPairsJaroWinkler adds penalties for first-character mismatches and length differences
   * on top of Jaro-Winkler. Where neither applies (single tokens of equal byte length whose first characters
   * agree or that share no character) the two must agree to Watchman's 3 decimals.
   */
  it('agrees with Watchman where the algorithms are comparable', () => {
    const [header, ...rows] = readCsv(
      readFileSync(new URL('../fixtures/screening/watchman_jaro_winkler_expected.csv', import.meta.url), 'utf8'),
    );
    const col = (name: string): number => header!.indexOf(name);
    const comparable = rows.filter((r) => {
      const a = r[col('indexed')]!;
      const b = r[col('query')]!;
      const shares = [...a].some((ch) => b.includes(ch));
      // Watchman measures length in UTF-8 bytes, so "café"/"cafe" differ in length there.
      return !/\s/.test(a + b) && Buffer.byteLength(a) === Buffer.byteLength(b) && (a[0] === b[0] || !shares);
    });
    expect(comparable.length).toBeGreaterThanOrEqual(8);
    for (const r of comparable) {
      expect(jaroWinkler(r[col('indexed')]!, r[col('query')]!), `${r[col('indexed')]} ~ ${r[col('query')]}`).toBeCloseTo(
        Number(r[col('expected_score')]),
        3,
      );
    }
  });

  it('is symmetric and within [0, 1]', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), (a, b) => {
        const s = jaroWinkler(a, b);
        expect(s).toBeGreaterThanOrEqual(0);
        expect(s).toBeLessThanOrEqual(1 + 1e-12);
        expect(jaroWinkler(b, a)).toBeCloseTo(s, 12);
      }),
    );
  });
});
