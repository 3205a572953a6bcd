import fc from 'fast-check';
import { expect, it } from 'vitest';
import { DECISION_KEYS } from '../../src/monitoring/compact-keys.js';
import { InstantRequestSchema } from '../../src/monitoring/request-schema.js';
import { decodeNumbered, encodeNumbered, keyTable, numberedWith } from '../../src/store/index.js';
import { keyTableId } from '../../src/store/numbered-keys.js';

const key = fc.oneof(fc.constantFrom(...DECISION_KEYS.keys), fc.string());

it('reads a stored object back as JSON.stringify writes it, field order included, whatever it holds', () => {
  fc.assert(
    fc.property(fc.object({ key, maxDepth: 3 }), (object) => {
      const text = JSON.stringify(encodeNumbered(DECISION_KEYS, object));
      const stored = JSON.parse(text) as unknown[];
      expect(numberedWith(stored)).toBe(DECISION_KEYS);
      const read = decodeNumbered(stored);
      expect(JSON.stringify(read)).toBe(JSON.stringify(object));
      expect(read).toEqual(JSON.parse(JSON.stringify(object)));
    }),
    { numRuns: 500 },
  );
});

/** Every key of an object schema at every depth, through nullish wrappers. */
function schemaKeys(schema: unknown, into: Set<string>): Set<string> {
  let inner = schema as { _zod: { def: { innerType?: unknown; shape?: Record<string, unknown> } } };
  while (inner._zod.def.innerType) inner = inner._zod.def.innerType as typeof inner;
  for (const [name, field] of Object.entries(inner._zod.def.shape ?? {})) schemaKeys(field, into.add(name));
  return into;
}

it('has a number for every key the request schema knows, so that a valid request is stored without key texts', () => {
  const keys = schemaKeys(InstantRequestSchema, new Set());
  expect(keys.size).toBeGreaterThan(70);
  expect([...keys].filter((k) => !DECISION_KEYS.keys.includes(k))).toEqual([]);
  const stored = encodeNumbered(DECISION_KEYS, { transactionData: { reference: 'T-1', amount: 10 }, ipAddress: '10.0.0.1', device: null });
  const at = (k: string) => DECISION_KEYS.keys.indexOf(k);
  expect(stored).toEqual([DECISION_KEYS.id, 0, [1, 'T-1', 2, 10], at('ipAddress'), '10.0.0.1', at('device'), null]);
});

it('names a table by the hash of its keys, so the stored data commits to the table it is read with', () => {
  expect(DECISION_KEYS.id).toBe(keyTableId(DECISION_KEYS.keys));
  expect(DECISION_KEYS.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
  // The table decisions are stored with: a changed table is a new one, added beside it (compact-keys.ts).
  expect(DECISION_KEYS.id).toBe('a4vI5F0BWP9ZUGQibCm6Dg');
  const other = keyTable(['b', 'a']);
  expect(other.id).not.toBe(keyTable(['a', 'b']).id);
  expect(() => decodeNumbered(['A'.repeat(22), 0, 1])).toThrow(/key table A{22}, which this engine does not know/);
  expect(() => keyTable(['a', 'a'])).toThrow(/each key once/);
});
