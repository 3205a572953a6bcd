import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PARTITIONS, decisionSubject, MAX_PARTITIONS, partitionOf, type Subject } from '../../src/partitions/index.js';

const counts = fc.integer({ min: 1, max: MAX_PARTITIONS });
const subjects = fc.record({
  kind: fc.constantFrom('user' as const, 'account' as const, 'transaction' as const),
  id: fc.string({ maxLength: 256 }),
});

// Worked out apart from the code (Python's hashlib): the first four bytes of SHA-256("kind\0id"), big-endian, mod the count.
const PINNED = { userAda: 56, account: 17, unicode: 92 };

describe('partitionOf', () => {
  it('is in range and the same on every call, for any subject and count', () => {
    fc.assert(
      fc.property(subjects, counts, (subject, count) => {
        const p = partitionOf(subject, count);
        expect(Number.isInteger(p) && p >= 0 && p < count).toBe(true);
        expect(partitionOf({ kind: subject.kind, id: `${subject.id}` }, count)).toBe(p);
      }),
    );
  });

  it('is fixed by its definition: these subjects land where the SHA-256 of kind NUL id says, on any node and version', () => {
    expect(partitionOf({ kind: 'user', id: 'user-ada' }, DEFAULT_PARTITIONS)).toBe(PINNED.userAda);
    expect(partitionOf({ kind: 'account', id: '0123456789' }, DEFAULT_PARTITIONS)).toBe(PINNED.account);
    expect(partitionOf({ kind: 'user', id: 'Adéọlá 🙂' }, 1000)).toBe(PINNED.unicode);
  });

  // 500 ids a partition on average, a standard deviation of about 22: the bounds are over five deviations away.
  it('spreads ids evenly: no partition holds more than 1.25× or less than 0.75× its share of 500 ids a partition', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('user' as const, 'account' as const),
        fc.string({ minLength: 1, maxLength: 8 }),
        fc.constantFrom(DEFAULT_PARTITIONS, 10, 37),
        (kind, prefix, count) => {
          const sizes = new Array<number>(count).fill(0);
          for (let i = 0; i < 500 * count; i++) sizes[partitionOf({ kind, id: `${prefix}${i}` }, count)]! += 1;
          expect(Math.max(...sizes)).toBeLessThan(625);
          expect(Math.min(...sizes)).toBeGreaterThan(375);
        },
      ),
      { numRuns: 3 },
    );
  });

  it('refuses a count that is not a whole number from 1 to the maximum', () => {
    for (const count of [0, -1, 1.5, MAX_PARTITIONS + 1, Number.NaN])
      expect(() => partitionOf({ kind: 'user', id: 'x' }, count)).toThrow(`got ${count}`);
  });
});

describe('decisionSubject', () => {
  const request = (user?: string | null, account?: string | null) => ({
    transactionData: { reference: 'REF-1', senderAccount: account },
    anonymizedUserData: user === undefined ? undefined : { uniqueId: user },
  });

  it('is the user, else the sending account, else the transaction itself', () => {
    expect(decisionSubject(request('u-1', 'acc-1'))).toEqual<Subject>({ kind: 'user', id: 'u-1' });
    expect(decisionSubject(request(null, 'acc-1'))).toEqual<Subject>({ kind: 'account', id: 'acc-1' });
    expect(decisionSubject(request('', 'acc-1'))).toEqual<Subject>({ kind: 'account', id: 'acc-1' });
    expect(decisionSubject(request(undefined, null))).toEqual<Subject>({ kind: 'transaction', id: 'REF-1' });
  });

  it('puts every decision of one user in one partition, whatever else the request holds', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.option(fc.string()), fc.option(fc.string()), counts, (user, a, b, count) => {
        expect(partitionOf(decisionSubject(request(user, a)), count)).toBe(partitionOf(decisionSubject(request(user, b)), count));
      }),
    );
  });
});
