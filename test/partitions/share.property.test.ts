import fc from 'fast-check';
import { expect, it } from 'vitest';
import { fairShare, shareMove } from '../../src/partitions/share.js';

/**
 * Nodes renewing one after another, as their timers fall, each seeing the others' leases as they stand: from any
 * starting ownership, a few rounds leave every partition owned, and no node above its fair share.
 */
it('converges from any ownership to every partition owned, none above its fair share', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 300 }),
      fc.integer({ min: 1, max: 6 }),
      fc.array(fc.integer({ min: -1, max: 5 }), { maxLength: 300 }),
      (count, nodes, start) => {
        // owner[p]: the node holding partition p, or -1 (free; a node gone from the live set leaves its partitions free).
        const owner = Array.from({ length: count }, (_, p) => {
          const o = start[p] ?? -1;
          return o < nodes ? o : -1;
        });
        for (let round = 0; round < 3; round++) {
          for (let node = 0; node < nodes; node++) {
            const mine = owner.flatMap((o, p) => (o === node ? [p] : []));
            const taken = new Set(owner.flatMap((o, p) => (o >= 0 ? [p] : [])));
            const move = shareMove(count, nodes, node, mine, taken);
            expect(move.release.length === 0 || move.claim.length === 0).toBe(true);
            for (const p of move.release) owner[p] = -1;
            for (const p of move.claim) {
              expect(owner[p]).toBe(-1);
              owner[p] = node;
            }
          }
        }
        expect(owner.every((o) => o >= 0)).toBe(true);
        for (let node = 0; node < nodes; node++)
          expect(owner.filter((o) => o === node).length).toBeLessThanOrEqual(fairShare(count, nodes));
      },
    ),
    { seed: 41, numRuns: 300 },
  );
});

it('gives two nodes half each of 64, and a third about a third', () => {
  expect(fairShare(64, 2)).toBe(32);
  expect(fairShare(64, 3)).toBe(22);
  expect(fairShare(64, 0)).toBe(64);
});
