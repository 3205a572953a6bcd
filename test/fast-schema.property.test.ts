import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DECLINED, fastAcceptor, precompiled } from '../src/fast-schema.js';
import { InstantRequestSchema } from '../src/monitoring/request-schema.js';
import { transactionSource } from '../bench/fixtures/transactions.js';
import { baseTx, tx } from './monitoring/fixtures.js';

type Schema = z.core.$ZodType;
const accept = fastAcceptor(InstantRequestSchema);

/** Keys in order, undefined-valued ones included, all the way down: what the idempotency hash depends on. */
const layout = (value: unknown): unknown =>
  value !== null && typeof value === 'object'
    ? Object.keys(value).map((k) => [k, layout((value as Record<string, unknown>)[k])])
    : typeof value;

function expectSameAsZod(input: unknown): void {
  const fast = accept(input);
  const zod = InstantRequestSchema.safeParse(input);
  if (!zod.success) {
    expect(fast).toBe(DECLINED);
    return;
  }
  expect(fast).not.toBe(DECLINED);
  expect(fast).toStrictEqual(zod.data);
  expect(layout(fast)).toEqual(layout(zod.data));
  expect(JSON.stringify(fast)).toBe(JSON.stringify(zod.data));
}

const lengths = (schema: Schema) => {
  let min = 0;
  let max = Infinity;
  for (const check of schema._zod.def.checks ?? []) {
    const def = check._zod.def as { check: string; minimum?: number; maximum?: number };
    if (def.check === 'min_length') min = def.minimum!;
    if (def.check === 'max_length') max = def.maximum!;
  }
  return { min, max };
};

const PAIR = '\u{1F600}';
/** Strings whose UTF-16 length is around a bound, some with surrogate pairs (zod counts code points). */
const aroundBound = (bound: number) =>
  fc.tuple(fc.integer({ min: -2, max: 2 }), fc.nat(3)).map(([delta, pairs]) => {
    const units = Math.max(0, bound + delta);
    const n = Math.min(pairs, Math.floor(units / 2));
    return 'x'.repeat(units - 2 * n) + PAIR.repeat(n);
  });

const timestamps = fc.oneof(
  fc
    .date({ min: new Date('1900-01-01'), max: new Date('2200-01-01'), noInvalidDate: true })
    .chain((d) =>
      fc.constantFrom(
        d.toISOString(),
        d.toISOString().replace('Z', '+01:00'),
        d.toISOString().replace(/\.\d+Z$/, 'Z'),
        d.toISOString().replace('Z', ''),
      ),
    ),
  fc.constantFrom(
    '2024-02-29T00:00:00Z',
    '2023-02-29T00:00:00Z',
    '2024-02-30T10:00:00Z',
    '2024-01-01 10:00:00Z',
    '12/06/2024',
    'yesterday',
    '',
  ),
);

const numbers = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(2 ** 53 - 1, 2 ** 53, 2 ** 53 + 2, -(2 ** 53), -0, 0.5, 1e308));

/** Values of the field's own type, mostly valid and often on an edge (the schema says which type). */
function valueFor(schema: Schema): fc.Arbitrary<unknown> {
  const def = schema._zod.def;
  switch (def.type) {
    case 'optional':
      return fc.option(valueFor((def as z.core.$ZodOptionalDef).innerType), { nil: undefined, freq: 6 });
    case 'nullable':
      return fc.option(valueFor((def as z.core.$ZodNullableDef).innerType), { nil: null, freq: 6 });
    case 'string': {
      if ((def as z.core.$ZodStringFormatDef).format === 'datetime') return timestamps;
      const { min, max } = lengths(schema);
      return fc.oneof(
        { arbitrary: fc.string({ minLength: min, maxLength: Math.min(max, 24) }), weight: 6 },
        fc.string({ unit: 'binary', maxLength: 6 }),
        fc.constantFrom('\uD83D', '\uDE00', PAIR, ''),
        aroundBound(min),
        ...(max < Infinity ? [aroundBound(max)] : []),
      );
    }
    case 'number':
      return numbers;
    case 'boolean':
      return fc.boolean();
    case 'object': {
      const shape = (def as z.core.$ZodObjectDef).shape;
      const required = Object.keys(shape).filter((k) => shape[k]!._zod.optin === undefined);
      return fc.record(Object.fromEntries(Object.entries(shape).map(([k, s]) => [k, valueFor(s)])), { requiredKeys: required });
    }
    default:
      throw new Error(`no generator for ${def.type}`);
  }
}

// Objects are made afresh for every value: shared ones carried one run's mutations into the next, and a mutation
// that set a shared object inside itself made the body cyclic (seed -1127159399).
const fresh: (() => unknown)[] = [() => [], () => ({}), () => new Date(0)];
const junk = fc.oneof(
  fc.jsonValue(),
  fc
    .constantFrom<unknown>(undefined, null, NaN, Infinity, -Infinity, ...fresh, '', 'x'.repeat(2001), 1.5, true, '2024-01-01T00:00:00Z')
    .map((v) => (typeof v === 'function' ? (v as () => unknown)() : v)),
);
const KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'reference', 'amount', 'deviceId', 'transactionData', 'extra'];
const mutation = fc.record({
  kind: fc.constantFrom('set', 'delete', 'unknown', 'inherited'),
  nested: fc.boolean(),
  pick: fc.nat(),
  key: fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 6 })),
  value: junk,
});

type Mutation = typeof mutation extends fc.Arbitrary<infer T> ? T : never;

/** Applies a mutation to the body or to one of its groups. */
function mutate(body: Record<string, unknown>, m: Mutation): void {
  const groups = Object.values(body).filter((v): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v));
  const target = m.nested && groups.length > 0 ? groups[m.pick % groups.length]! : body;
  const keys = Object.keys(target);
  const existing = keys.length > 0 ? keys[m.pick % keys.length]! : m.key;
  switch (m.kind) {
    case 'set':
      target[existing] = m.value;
      return;
    case 'delete':
      delete target[existing];
      return;
    case 'unknown':
      Object.defineProperty(target, m.key, { value: m.value, enumerable: true, configurable: true, writable: true });
      return;
    case 'inherited':
      Object.setPrototypeOf(target, { [m.pick % 2 === 0 ? m.key : existing]: m.value });
  }
}

const validBodies = valueFor(InstantRequestSchema as unknown as Schema) as fc.Arbitrary<Record<string, unknown>>;

describe('precompiled instant-body acceptor', () => {
  it('accepts the common bodies itself (the fast path is taken)', () => {
    const next = transactionSource({ users: 10, receivers: 10 });
    for (const body of [
      baseTx,
      tx('a'),
      tx('b', { location: null, beneficiary: { isNewBeneficiary: null } }),
      next(),
      JSON.parse(JSON.stringify(next())),
    ]) {
      expect(accept(body)).not.toBe(DECLINED);
      expectSameAsZod(body);
    }
  });

  it('accepts exactly what zod accepts, with the same output, on generated bodies', () => {
    fc.assert(
      fc.property(validBodies, (body) => {
        expectSameAsZod(body);
        expectSameAsZod(JSON.parse(JSON.stringify(body)));
      }),
      { numRuns: 1000 },
    );
  });

  it('accepts exactly what zod accepts, with the same output, on mutated bodies', () => {
    fc.assert(
      fc.property(validBodies, fc.array(mutation, { minLength: 1, maxLength: 3 }), junk, (body, mutations, other) => {
        for (const m of mutations) mutate(body, m);
        expectSameAsZod(body);
        expectSameAsZod(other);
        const json = JSON.stringify(body);
        if (json !== undefined) expectSameAsZod(JSON.parse(json));
      }),
      { numRuns: 2000 },
    );
  });

  it('falls back to zod, with its issues, for what it declines', () => {
    const parse = precompiled(InstantRequestSchema);
    const bad = tx('x', { transactionData: { amount: '100' } });
    const result = parse(bad);
    expect(result.success).toBe(false);
    expect(result.error?.issues).toEqual(InstantRequestSchema.safeParse(bad).error?.issues);
  });

  it('refuses, when built, a schema feature it does not reproduce', () => {
    for (const schema of [
      z.strictObject({ a: z.url() }),
      z.strictObject({ a: z.string().trim() }),
      z.strictObject({ a: z.string().regex(/a/) }),
      z.strictObject({ a: z.number().min(1) }),
      z.strictObject({ a: z.array(z.string()) }),
      z.strictObject({ a: z.string().default('x') }),
      z.object({ a: z.string() }),
      z.strictObject({ a: z.coerce.number() }),
    ]) {
      expect(() => fastAcceptor(schema)).toThrow(/fast schema/);
    }
  });

  it('keeps the meaning of the formats it does take', () => {
    const check = fastAcceptor(z.strictObject({ i: z.int().optional(), d: z.iso.date().optional() }));
    expect(check({ i: 3, d: '2024-02-29' })).toEqual({ i: 3, d: '2024-02-29' });
    expect(check({ i: 1.5 })).toBe(DECLINED);
    expect(check({ i: 2 ** 53 })).toBe(DECLINED);
    expect(check({ d: '2023-02-29' })).toBe(DECLINED);
  });
});
