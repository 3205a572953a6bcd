import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareDecimals, Dec } from '../../src/rules/values.js';

// Decimals across signs, zero, magnitudes and long fractions, written the way requests and rules write them.
const decimal = fc
  .tuple(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.integer({ min: -20, max: 20 }))
  .map(([digits, shift]) => new Dec(`${digits}e${shift}`));
const special = fc.constantFrom(new Dec(0), new Dec('-0'), new Dec(NaN), new Dec(Infinity), new Dec(-Infinity), new Dec('1e-20'));

describe('compareDecimals', () => {
  it('orders exactly like decimal.js cmp', () => {
    fc.assert(
      fc.property(fc.oneof(decimal, special), fc.oneof(decimal, special), (a, b) => {
        expect(compareDecimals(a, b)).toBe(a.cmp(b));
        expect(compareDecimals(a, a)).toBe(a.cmp(a));
      }),
      { numRuns: 2000 },
    );
  });
});
