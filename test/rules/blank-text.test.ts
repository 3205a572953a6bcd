// docs/rules.md "Missing values": a text that is empty or only white space is missing, as a field, as an
// aggregate's key and as a first-seen or last-seen key; a list line in CIDR notation holds every address in it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RulesRuntime } from '../../src/rules/index.js';
import { presentText } from '../../src/rules/values.js';
import { compileText } from './helpers.js';

const rule = (id: string, when: string) => `rule ${id} "t"\n  when ${when}\n  score 1\n  reason ${id} low "m"\nend\n`;
const DECIDE = 'decide\n  otherwise low\nend\n';
const fired = (r: RulesRuntime, input: unknown, now = 0): string[] => r.evaluate(input, now).fired.map((f) => f.id);

describe('blank text', () => {
  const ruleset = compileText(
    rule('MISSING', 'x.s is missing') +
      rule('EMPTY', 'x.s = ""') +
      rule('OTHER', 'x.s != "a"') +
      rule('BURST', 'count(by user over 10 minutes) >= 3') +
      rule('NEW_PAIR', 'firstSeen(pair)') +
      DECIDE,
  );

  it('is missing as a field: `is missing` holds, and no comparison does', () => {
    const r = new RulesRuntime(ruleset);
    for (const blank of ['', ' ', '\t\n', '\u00a0\u3000']) expect(fired(r, { x: { s: blank } })).toEqual(['MISSING']);
    expect(fired(r, { x: { s: ' b ' } })).toEqual(expect.arrayContaining(['OTHER']));
  });

  it('is no key: transactions with a blank user are never counted together, nor paired', () => {
    const r = new RulesRuntime(ruleset);
    for (let i = 0; i < 5; i++) r.record({ x: { s: i % 2 ? '' : '  ', t: 'd' } }, i);
    expect(fired(r, { x: { s: ' ', t: 'd' } }, 10)).toEqual(['MISSING']);
    for (let i = 0; i < 2; i++) r.record({ x: { s: 'u1', t: 'd' } }, i);
    expect(fired(r, { x: { s: 'u1', t: 'd' } }, 10)).toEqual(['OTHER', 'BURST']);
  });

  it('reads like String.prototype.trim() decides', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(' ', '\t', '\n', '\u00a0', '\u2003', '\ufeff', '\u0001', 'a', 'é') }), (s) => {
        expect(presentText(s)).toBe(s.trim() === '' ? undefined : s);
      }),
    );
  });
});

describe('a list line in CIDR notation', () => {
  const ranges = compileText(rule('CARRIER', 'x.s in list carriers') + DECIDE, {
    lists: { carriers: '105.112.0.0/12  # a range\n2c0f:f4c0::/32\n10.0.0.1\n' },
  });
  const r = new RulesRuntime(ranges);

  it('holds every address inside the range and nothing outside it', () => {
    expect(fired(r, { x: { s: '105.113.4.20' } })).toEqual(['CARRIER']);
    expect(fired(r, { x: { s: '105.127.255.255' } })).toEqual(['CARRIER']);
    expect(fired(r, { x: { s: '::ffff:105.112.0.1' } })).toEqual(['CARRIER']);
    expect(fired(r, { x: { s: '2c0f:f4c0:1::9' } })).toEqual(['CARRIER']);
    expect(fired(r, { x: { s: '10.0.0.1' } })).toEqual(['CARRIER']);
    expect(fired(r, { x: { s: '105.128.0.1' } })).toEqual([]);
    expect(fired(r, { x: { s: '10.0.0.2' } })).toEqual([]);
    expect(fired(r, { x: { s: 'not an address' } })).toEqual([]);
  });
});
