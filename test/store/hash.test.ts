import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rowHash } from '../../src/store/hash.js';

// The chain is stored: every database written so far must still verify, so the digest of a row never changes.
const row = {
  global_position: 7,
  event_id: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
  stream_id: 'tm-tx-default-ade0af9cc846128147bffcef',
  stream_version: 1,
  type: 'TransactionDecided',
  schema_version: 1,
  data: '{"reference":"TX-1-6","amount":"17595.50","note":"naïve ✓"}',
  metadata: '{"businessId":"default","actor":"api"}',
  recorded_at: '2026-11-24T17:17:00.695Z',
};

/** The chain's definition as first written: SHA-256 updated with the previous hash, then the row's fields as a JSON array. */
const streamed = (previous: string, r: typeof row) =>
  createHash('sha256')
    .update(previous)
    .update(
      JSON.stringify([
        r.global_position,
        r.event_id,
        r.stream_id,
        r.stream_version,
        r.type,
        r.schema_version,
        r.data,
        r.metadata,
        r.recorded_at,
      ]),
    )
    .digest('hex');

describe('row hash', () => {
  it('keeps the digest rows were stored with', () => {
    expect(rowHash('ab'.repeat(32), row)).toBe('9fb43ae63c502b84c8b7b3d5d1e342c3989a0e134cbde5737cc761804798dfc0');
  });

  it('equals the streamed definition for any text, non-ASCII included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), fc.nat(), (previous, data, position) => {
        const r = { ...row, global_position: position, data };
        expect(rowHash(previous, r)).toBe(streamed(previous, r));
      }),
      { numRuns: 300 },
    );
  });
});
