import { describe, expect, it } from 'vitest';
import { newId } from '../src/ids.js';

describe('newId', () => {
  it('is 24 hex characters, the first 8 the seconds of the given time', () => {
    const id = newId(new Date('2026-11-24T10:00:00Z'));
    expect(id).toMatch(/^[0-9a-f]{24}$/);
    expect(parseInt(id.slice(0, 8), 16)).toBe(Date.parse('2026-11-24T10:00:00Z') / 1000);
  });

  it('never repeats, also across refills of its pool of random bytes', () => {
    const now = new Date();
    const ids = Array.from({ length: 5_000 }, () => newId(now));
    expect(new Set(ids).size).toBe(ids.length);
    // The random part is not a counter: consecutive ids share no more than chance would.
    const tails = new Set(ids.map((id) => id.slice(8, 12)));
    expect(tails.size).toBeGreaterThan(4_000);
  });
});
