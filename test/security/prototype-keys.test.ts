// Outside input used as a key (rule ids, list names, asset names, body keys) must never reach Object.prototype.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { documentCheck } from '../../src/cdd/checks/subjects.js';
import { normaliseName } from '../../src/name-matching/normalise.js';
import { parseCsvObjects } from '../../src/name-matching/sources/common.js';
import { ownSlot, ownValue } from '../../src/own-keys.js';
import { backtest } from '../../src/rules/index.js';
import { deepMerge } from '../../src/rules/ruletest.js';
import { testApi, type TestApi } from '../helpers.js';
import { tx } from '../monitoring/fixtures.js';
import { compileText, DECIDE as DECIDE_TEST, diagnostics } from '../rules/helpers.js';

const BACKTEST = '/api/v1/transaction-monitoring/rules/backtest';
const DECIDE = 'decide\n  rejected at 80\n  review at 40\n  otherwise approved\nend\n';
const R_PLAIN = `rule R1 "t"\n  when x.a > 100\n  score 90\n  reason C1 low "m"\nend\n${DECIDE_TEST}`;
const rule = (id: string) => `rule ${id} "x"\n  when transactionData.amount > 0\n  score 90\n  reason X1 low "x"\nend\n\n`;

let api: TestApi;
beforeAll(async () => {
  api = await testApi();
  await api.call('POST', '/api/v1/transaction-monitoring/instant', { body: tx('PROTO-1') });
});
afterAll(() => api.close());
// Each backtest starts a thread, which under tsx (the tests) loads the rules and the store from source: seconds.
vi.setConfig({ testTimeout: 120_000 });

const BUILTIN = new Set(Object.getOwnPropertyNames(Object.prototype));
/** Names added to Object.prototype since the test file loaded. */
const polluted = () => Object.getOwnPropertyNames(Object.prototype).filter((n) => !BUILTIN.has(n));
// A polluted prototype would fail every later test of the worker too: each test cleans up after itself.
afterEach(() => {
  for (const name of polluted()) delete (Object.prototype as Record<string, unknown>)[name];
});

it('a backtest of a rule named __proto__ is refused, pollutes nothing, and the service keeps answering', async () => {
  const res = await api.call('POST', BACKTEST, { body: { files: { 'x.rules': rule('__proto__') + DECIDE } } });
  expect(polluted()).toEqual([]);
  expect(res.status).toBe(400);
  expect(res.body.message).toBe(
    'candidate rules do not compile: x.rules:1:6 __proto__ cannot be used as a rule id: __proto__, constructor, prototype are reserved',
  );
  expect((await api.call('GET', '/healthz', { key: null })).status).toBe(200);
  expect((await api.call('POST', '/api/v1/transaction-monitoring/instant', { body: tx('PROTO-2') })).status).toBe(200);
  expect((await api.call('GET', '/api/v1/transaction-monitoring/blacklist-user', { key: api.tenantB })).status).toBe(200);
});

it.each([
  ['constructor', 400],
  ['prototype', 400],
  ['toString', 200],
  ['hasOwnProperty', 200],
])('a backtest of rule id %s answers %i and leaves the service answering', async (id, status) => {
  const res = await api.call('POST', BACKTEST, { body: { files: { 'x.rules': rule(id) + DECIDE } } });
  expect(polluted()).toEqual([]);
  expect(res.status).toBe(status);
  if (status === 200) expect(Object.keys(res.body.data.ruleHits)).toEqual([id]);
  expect((await api.call('GET', '/healthz', { key: null })).status).toBe(200);
});

it.each(['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__', 'prototype'])(
  'GET /docs/assets/%s is a 404',
  async (name) => {
    const res = await api.call('GET', `/docs/assets/${name}`, { key: null });
    expect(res).toMatchObject({ status: 404, body: { error: 404, message: `No asset ${name}` } });
  },
);

describe('the rule checker refuses reserved names where they would become keys', () => {
  const R = (id: string, when: string) => `rule ${id} "t"\n  when ${when}\n  score 10\n  reason C1 low "m"\nend\n${DECIDE_TEST}`;
  it.each(['__proto__', 'constructor', 'prototype'])('%s as a rule id, list name, velocity key or field name', (name) => {
    const reserved = `${name} cannot be used as`;
    expect(diagnostics(R(name, 'x.a > 1'))).toEqual([
      `rules/a.rules:1:6 ${reserved} a rule id: __proto__, constructor, prototype are reserved`,
    ]);
    expect(diagnostics(R('R1', `x.s in list ${name}`))).toEqual([
      `rules/a.rules:2:20 ${reserved} a list name: __proto__, constructor, prototype are reserved`,
    ]);
    expect(diagnostics(R('R1', `count(by ${name} over 1 hour) > 1`))).toEqual([
      `rules/a.rules:2:17 ${reserved} a velocity key: __proto__, constructor, prototype are reserved`,
    ]);
    expect(diagnostics(R('R1', `${name} > 1`))).toEqual([
      `rules/a.rules:2:8 ${reserved} a field name: __proto__, constructor, prototype are reserved`,
    ]);
    expect(diagnostics(R('R1', `x.${name} > 1`))[0]).toBe(
      `rules/a.rules:2:8 ${reserved} a field name: __proto__, constructor, prototype are reserved`,
    );
    expect(diagnostics(R('R1', 'x.s in list ok'), { lists: { ok: 'a\n', [name]: 'b\n' } })).toEqual([
      `rules/lists/${name}.txt:1:1 list names __proto__, constructor, prototype are reserved: rename the file`,
    ]);
  });

  it("finds none of Object.prototype's members as fields, functions, aggregates or engine lists", () => {
    expect(diagnostics(R('R1', 'toString > 1'))[0]).toMatch(/^rules\/a\.rules:2:8 unknown field toString/);
    expect(diagnostics(R('R1', 'hasOwnProperty(x.s)'))[0]).toMatch(/^rules\/a\.rules:2:8 unknown function hasOwnProperty/);
    expect(diagnostics(R('R1', 'valueOf(by user over 1 hour) > 1'))[0]).toMatch(/^rules\/a\.rules:2:8 unknown aggregate valueOf/);
    expect(diagnostics(R('R1', 'x.s in list toString'))[0]).toMatch(/^rules\/a\.rules:2:20 unknown list toString/);
  });
});

it('a backtest over stored decisions whose fired ids are hostile counts them as plain names', async () => {
  const candidate = compileText(R_PLAIN);
  const hostile = ['__proto__', 'constructor', 'toString'];
  const report = await backtest(
    hostile.map((id, i) => ({
      request: { x: { s: 'u', a: 1 } },
      decidedAt: new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString(),
      rulesetVersion: 'old',
      action: '__proto__',
      fired: [id],
    })),
    candidate,
  );
  expect(polluted()).toEqual([]);
  for (const id of hostile) expect(Object.getOwnPropertyDescriptor(report.ruleHits, id)?.value).toEqual({ current: 1, candidate: 0 });
  expect(Object.getOwnPropertyDescriptor(report.transitions, '__proto__→low')?.value).toBe(3);
  expect(JSON.stringify(report.ruleHits)).toBe(
    '{"__proto__":{"current":1,"candidate":0},"constructor":{"current":1,"candidate":0},"toString":{"current":1,"candidate":0}}',
  );
});

describe('tables looked up by outside input answer only their own keys', () => {
  it('a name made of prototype member names normalises to its own tokens', () => {
    expect(normaliseName('Constructor toString Valueof')).toEqual(['constructor', 'tostring', 'valueof']);
  });

  it('identity documents of type constructor or __proto__ map to no check', () => {
    for (const type of ['constructor', '__proto__', 'toString']) expect(documentCheck(type)).toBeUndefined();
  });

  it('CSV headers that name prototype members become plain columns', () => {
    const [row] = parseCsvObjects('__proto__,constructor,name\nx,y,z\n');
    expect(polluted()).toEqual([]);
    expect(Object.getPrototypeOf(row)).toBeNull();
    expect(Object.entries(row!)).toEqual([
      ['__proto__', 'x'],
      ['constructor', 'y'],
      ['name', 'z'],
    ]);
  });

  it('a slot keyed __proto__ is an own key, and Object.prototype stays untouched', () => {
    const persons: Record<string, Record<string, string>> = JSON.parse('{}');
    ownSlot<Record<string, string>>(persons, '__proto__', () => ({})).pep = 'confirmed';
    expect(polluted()).toEqual([]);
    expect(({} as Record<string, unknown>).pep).toBeUndefined();
    expect(JSON.stringify(persons)).toBe('{"__proto__":{"pep":"confirmed"}}');
    expect(ownValue(JSON.parse(JSON.stringify(persons)), '__proto__')).toEqual({ pep: 'confirmed' });
    expect(ownValue(persons, 'constructor')).toBeUndefined();
  });

  it('a rule test case whose patch holds __proto__ merges it as a plain key', () => {
    const merged = deepMerge({ a: { b: 1 } }, JSON.parse('{"__proto__":{"polluted":true},"a":{"c":2}}')) as Record<string, unknown>;
    expect(polluted()).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(merged.a).toEqual({ b: 1, c: 2 });
    expect(Object.getOwnPropertyDescriptor(merged, '__proto__')?.value).toEqual({ polluted: true });
  });
});
