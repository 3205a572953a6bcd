import fc from 'fast-check';
import { expect, it } from 'vitest';
import { decodeKeyed, encodeKeyed, STORED_KEYS } from '../../src/monitoring/compact-keys.js';
import { InstantRequestSchema } from '../../src/monitoring/request-schema.js';

const key = fc.oneof(fc.constantFrom(...STORED_KEYS), fc.string());

it('reads a stored object back as JSON.stringify writes it, field order included, whatever it holds', () => {
  fc.assert(
    fc.property(fc.object({ key, maxDepth: 3 }), (object) => {
      const text = JSON.stringify(encodeKeyed(object));
      const read = decodeKeyed(JSON.parse(text));
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
  expect([...keys].filter((k) => !STORED_KEYS.includes(k))).toEqual([]);
  expect(new Set(STORED_KEYS).size).toBe(STORED_KEYS.length);
  const stored = encodeKeyed({ transactionData: { reference: 'T-1', amount: 10 }, ipAddress: '10.0.0.1', device: null });
  expect(stored).toEqual([0, [1, 'T-1', 2, 10], STORED_KEYS.indexOf('ipAddress'), '10.0.0.1', STORED_KEYS.indexOf('device'), null]);
});

it('refuses a stored object whose key number this engine does not know, rather than reading another key', () => {
  expect(() => decodeKeyed([STORED_KEYS.length, 1])).toThrow(/key \d+/);
});
