/**
 * Hostile input against every route that takes a body: bodies built from each route's OpenAPI schema, then
 * mutated with prototype keys, deep nesting, lone surrogates, huge numbers and strings, wrong types and rule
 * texts made of the grammar's tokens. No answer may be a 5xx, and afterwards the service still serves
 * /healthz and the other tenant.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_RATE_LIMITS } from '../../src/rate-limits.js';
import { testApi, type TestApi } from '../helpers.js';

const RUNS = 300;
const SEED = 20261127;

type Schema = Record<string, any>;
type Route = { method: string; path: string; schema: Schema | null };

let api: TestApi;
let doc: Schema;
const ids: string[] = [];

const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];

function deref(schema: Schema | undefined): Schema {
  let s = schema ?? {};
  while (s.$ref) s = doc.components.schemas[String(s.$ref).split('/').pop()!];
  return s;
}

/**
 * A well-formed value for a schema: its example, else its first enum value, else one built from its type; with
 * `requiredOnly`, optional fields are left out (a filled-in optional window or filter can hide what a body reaches).
 */
function seed(schema: Schema | undefined, requiredOnly: boolean, depth = 0): unknown {
  const s = deref(schema);
  if (s.example !== undefined) return s.example;
  if (s.enum) return s.enum[0];
  if (s.const !== undefined) return s.const;
  const variant = s.anyOf ?? s.oneOf;
  if (variant) return seed(variant.find((v: Schema) => deref(v).type !== 'null') ?? variant[0], requiredOnly, depth);
  if (s.allOf) return Object.assign({}, ...s.allOf.map((part: Schema) => seed(part, requiredOnly, depth)));
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type;
  if (depth > 6) return null;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      const required = new Set<string>(s.required ?? []);
      for (const [k, v] of Object.entries<Schema>(s.properties ?? {}))
        if (!requiredOnly || required.has(k)) out[k] = seed(v, requiredOnly, depth + 1);
      return out;
    }
    case 'array':
      return [seed(s.items, requiredOnly, depth + 1)];
    case 'integer':
    case 'number':
      return s.minimum ?? 1;
    case 'boolean':
      return true;
    case 'string':
      return s.format === 'date-time' ? '2026-01-01T00:00:00.000Z' : s.format === 'date' ? '2026-01-01' : 'x';
    default:
      return null;
  }
}

/** Rule texts made of the grammar's tokens, in and out of order, with prototype names as ids and list names. */
const ruleText = fc
  .array(
    fc.constantFrom(
      'rule',
      'when',
      'score',
      'reason',
      'end',
      'decide',
      'rejected',
      'review',
      'approved',
      'at',
      'otherwise',
      'and',
      'or',
      'not',
      'in',
      'list',
      'matches',
      'count',
      'sum',
      'within',
      '10m',
      '24h',
      'transactionData.amount',
      'anonymizedUserData.uniqueId',
      '>',
      '>=',
      '==',
      '(',
      ')',
      ',',
      '"x"',
      '90',
      '1e308',
      '-0',
      'low',
      'high',
      'X1',
      ...PROTO_KEYS,
      '\n',
    ),
    { maxLength: 60 },
  )
  .map((tokens) => tokens.join(' '));

/** Well-formed rulesets whose rule ids, list names and reason codes are hostile names. */
const wellFormedRules = fc
  .tuple(fc.constantFrom(...PROTO_KEYS, 'R1'), fc.option(fc.constantFrom(...PROTO_KEYS, 'banned')), fc.constantFrom('X1', ...PROTO_KEYS))
  .map(
    ([id, list, code]) =>
      `rule ${id} "x"\n  when transactionData.amount > 0${list ? ` or anonymizedUserData.uniqueId in list ${list}` : ''}\n` +
      `  score 90\n  reason ${code} low "x"\nend\n\ndecide\n  rejected at 80\n  review at 40\n  otherwise approved\nend\n`,
  );

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    null,
    '',
    '\uD800',
    'a\uDFFFb',
    1e308,
    -1e308,
    2 ** 53 + 1,
    -0,
    0.1,
    Number.MAX_SAFE_INTEGER,
    '1e999',
    'NaN',
    true,
    [],
    {},
    '__proto__',
    'constructor',
    '../../etc/passwd',
    '<script>alert(1)</script>',
    'x'.repeat(100_000),
    '9'.repeat(400),
  ),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.integer(),
  fc.double(),
  fc.integer({ min: 1, max: 3000 }).map((depth) => JSON.parse('['.repeat(depth) + ']'.repeat(depth))),
  fc.nat({ max: 3000 }).map((depth) => JSON.parse(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`)),
  ruleText,
  fc.dictionary(fc.constantFrom(...PROTO_KEYS, 'x.rules', 'a'), ruleText, { maxKeys: 3 }),
  fc.record({ 'x.rules': wellFormedRules }),
);

/** A JSON text for a mutated body: the mutation may set any field at any depth, or add keys no schema has. */
function mutate(schema: Schema | null): fc.Arbitrary<string> {
  return fc.constantFrom(...(schema ? [seed(schema, true), seed(schema, false)] : [{}])).chain(mutateBody);
}

function mutateBody(base: unknown): fc.Arbitrary<string> {
  const withPaths = (value: unknown, prefix: string[] = []): string[][] => {
    if (value === null || typeof value !== 'object') return [prefix];
    return [prefix, ...Object.keys(value).flatMap((k) => withPaths((value as Record<string, unknown>)[k], [...prefix, k]))];
  };
  const paths = withPaths(base);
  const setAt = (value: unknown, path: string[], replacement: unknown): unknown => {
    if (path.length === 0) return replacement;
    const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) };
    copy[path[0]!] = setAt(copy[path[0]!], path.slice(1), replacement);
    return copy;
  };
  // A key spliced into the JSON text, since JSON.stringify will not write an own __proto__ from an object literal.
  const injectKey = (text: string, key: string, value: unknown) =>
    text.startsWith('{') && text.length > 2 ? `{${JSON.stringify(key)}:${JSON.stringify(value)},${text.slice(1)}` : text;
  // Where a body carries rule files, hostile rulesets go there often enough to matter.
  const rulesets =
    base !== null && typeof base === 'object' && 'files' in base
      ? [
          fc.record({ 'x.rules': fc.oneof(wellFormedRules, ruleText) }).map((files) => JSON.stringify({ ...base, files })),
          fc
            .dictionary(fc.constantFrom('x.rules', ...PROTO_KEYS), fc.oneof(wellFormedRules, ruleText), { minKeys: 1, maxKeys: 3 })
            .map((files) => JSON.stringify({ ...base, files }).replace('"prototype":', '"__proto__":')),
        ]
      : [];
  return fc.oneof(
    ...rulesets,
    fc.tuple(fc.constantFrom(...paths), hostileValue).map(([path, v]) => JSON.stringify(setAt(base, path, v))),
    fc
      .tuple(fc.constantFrom(...PROTO_KEYS), fc.oneof(hostileValue, fc.constant({ polluted: 'yes', candidate: 1 })))
      .map(([key, v]) => injectKey(JSON.stringify(base), key, v)),
    fc
      .tuple(fc.constantFrom(...paths.map((p) => (p.length > 0 ? p : ['body']))), fc.constantFrom(...PROTO_KEYS), hostileValue)
      .map(([path, key, v]) => {
        const parent = path.slice(0, -1);
        const text = JSON.stringify(setAt(base, [...parent, key], v));
        return text.replace(`"${key}":`, '"__proto__":');
      }),
    hostileValue.map((v) => JSON.stringify(v) ?? 'null'),
    fc.constantFrom('', 'not json', '{', '{"a":1,"a":2}', '[1,2,', '\u0000', '{"__proto__":{"polluted":"yes"}}'),
  );
}

const pathValue = () =>
  fc.oneof(fc.constantFrom(...ids, ...PROTO_KEYS, 'x', '..', '%2e%2e%2f', '\u00e9', 'a'.repeat(2000)), fc.string({ maxLength: 12 }));

function routes(): Route[] {
  const out: Route[] = [];
  for (const [path, ops] of Object.entries<Schema>(doc.paths)) {
    for (const [method, op] of Object.entries<Schema>(ops)) {
      if (!['post', 'put', 'patch'].includes(method)) continue;
      out.push({ method: method.toUpperCase(), path, schema: op.requestBody?.content?.['application/json']?.schema ?? null });
    }
  }
  return out;
}

function expectUnharmed(after: string) {
  const probe: Record<string, unknown> = {};
  expect(probe.polluted, `Object.prototype polluted after ${after}`).toBeUndefined();
  expect(probe.candidate, `Object.prototype polluted after ${after}`).toBeUndefined();
  expect(Object.keys(Object.prototype), `Object.prototype polluted after ${after}`).toEqual([]);
}

beforeAll(async () => {
  api = await testApi({ workerIntervalMs: 0, rateLimits: NO_RATE_LIMITS });
  doc = (await api.call('GET', '/openapi.json')).body;
  // A decision, so a backtest has history to replay; a case, so routes under a case have a real id to reach.
  const decided = await api.call('POST', '/api/v1/transaction-monitoring/instant', {
    body: { transactionData: { reference: 'fuzz-seed-1', amount: 5000, currency: 'NGN' }, anonymizedUserData: { uniqueId: 'u1' } },
  });
  expect(decided.status).toBe(200);
  const opened = await api.call('POST', '/api/v1/case-management/case', {
    body: {
      module: 'transaction-monitoring',
      record: { id: 'r1', type: 'transaction', name: 'r1' },
      title: 'fuzz',
      description: 'seed',
      priority: 'low',
    },
  });
  expect(opened.status).toBe(201);
  ids.push(opened.body.data.id);
}, 120_000);

afterAll(async () => api?.close());

describe('hostile bodies on every POST, PUT and PATCH route', () => {
  it('covers the routes the document lists', () => {
    expect(routes().length).toBeGreaterThanOrEqual(20);
  });

  for (const route of [
    'POST /api/v1/transaction-monitoring/rules/backtest',
    'POST /api/v1/transaction-monitoring/instant',
    'POST /api/v1/aml/screen',
    'POST /api/v1/cdd/customers',
    'POST /api/v1/case-management/case',
  ]) {
    it(`${route} still answers after a body keyed by __proto__`, async () => {
      const [method, path] = route.split(' ') as [string, string];
      const res = await api.call(method, path, { body: '{"__proto__":{"polluted":"yes","candidate":1},"files":{"__proto__":"x"}}' });
      expect(res.status).toBeLessThan(500);
      expectUnharmed(route);
    });
  }

  it(`answers ${RUNS} mutated bodies a route with no 5xx, and leaves the service serving everyone`, async () => {
    const failures: string[] = [];
    for (const route of routes()) {
      await fc
        .assert(
          fc.asyncProperty(mutate(route.schema), fc.array(pathValue(), { minLength: 2, maxLength: 2 }), async (body, [a, b]) => {
            const path = route.path.replace(/\{[^}]+\}/, encodeURIComponent(a!)).replace(/\{[^}]+\}/, encodeURIComponent(b!));
            const res = await api.call(route.method, path, { body });
            if (res.status >= 500)
              failures.push(`${route.method} ${route.path} ${res.status} ${JSON.stringify(res.body)} <- ${body.slice(0, 300)}`);
            return res.status < 500;
          }),
          { numRuns: RUNS, seed: SEED, endOnFailure: true },
        )
        .catch((error: unknown) => failures.push(`${route.method} ${route.path}: ${String(error).slice(0, 600)}`));
      expectUnharmed(`${route.method} ${route.path}`);
    }
    expect(failures).toEqual([]);
    expect((await api.call('GET', '/healthz', { key: null })).status).toBe(200);
    expect((await api.call('GET', '/api/v1/case-management/listing', { key: api.tenantB })).status).toBe(200);
  }, 600_000);
});
