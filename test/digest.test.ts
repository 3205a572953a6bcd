import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha256, sha256Hex } from '../src/digest.js';

describe('sha256', () => {
  it('gives the digest of a Hash object, as hex and as bytes, for any text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const expected = createHash('sha256').update(text).digest();
        expect(sha256Hex(text)).toBe(expected.toString('hex'));
        expect(sha256(text).equals(expected)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
