/**
 * North Korean names written in Hangul, against the bundled lists, which spell them in Latin letters by the DPRK's
 * romanisation (korean.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { koreanNameReading } from '../../src/name-matching/korean.js';
import { createMatcher, type Matcher } from '../../src/name-matching/matcher.js';
import type { ScreeningList } from '../../src/name-matching/records.js';
import { embeddedFixture, LOAD_TIMEOUT } from './embedded-matcher.js';

const HANGUL = /\p{Script=Hangul}/u;

let lists: ScreeningList[];
let matcher: Matcher;

beforeAll(async () => {
  ({ lists, matcher } = await embeddedFixture());
}, LOAD_TIMEOUT);

describe('Korean names in Hangul', () => {
  it('reads a name syllable by syllable, as the lists spell North Korean names', () => {
    expect(koreanNameReading('김정은')).toBe('kim jong un');
    expect(koreanNameReading('최룡해')).toBe('choe ryong hae');
    expect(koreanNameReading('오극렬')).toBe('o kuk ryol');
    // Voiced inside the given name after a vowel or a voiced final: RI Man Gon, KIM Yong Bok.
    expect(koreanNameReading('리만건')).toBe('ri man gon');
    expect(koreanNameReading('김영복')).toBe('kim yong bok');
    expect(koreanNameReading('김 정은')).toBe('kim jong un');
    // Longer Hangul is a foreign name or an organisation, not cut into syllables.
    expect(koreanNameReading('블라디미르 푸틴')).toBeUndefined();
    expect(koreanNameReading('조선광선은행')).toBeUndefined();
    expect(koreanNameReading('Kim')).toBeUndefined();
    // A surname put last, in the Western way, is not this reading's order.
    expect(koreanNameReading('영호 최')).toBeUndefined();
  });

  it("finds each person the UK list names in Hangul by the entry's Latin names alone", async () => {
    // The UK list's own original-script names, taken off its entries: what is left to find them by is the
    // Latin spelling every list uses.
    const uk = lists.find((l) => l.name === 'uk-ofsi-consolidated')!;
    const written = uk.entries.flatMap((e) => e.aliases.filter((a) => HANGUL.test(a)).map((a) => ({ hangul: a, id: e._id })));
    expect(written.length).toBeGreaterThanOrEqual(5);
    const latinOnly: ScreeningList = {
      ...uk,
      entries: uk.entries.map((e) => ({ ...e, aliases: e.aliases.filter((a) => !HANGUL.test(a)) })),
    };
    const latin = createMatcher([latinOnly]);
    for (const { hangul, id } of written) {
      const hit = latin.screen({ name: hangul, threshold: 85 }).sanction[0];
      expect({ hangul, found: hit?._id }).toEqual({ hangul, found: id });
    }
  });

  it('finds listed North Korean officials from their names in Hangul at the default threshold', () => {
    // Hangul as North Korean and South Korean sources write these names; the Latin names are the lists' own.
    const officials: [string, string][] = [
      ['김정은', 'KIM, Jong Un'],
      ['김여정', 'KIM, Yo Jong'],
      ['최룡해', 'CHOE, Ryong Hae'],
      ['황병서', 'HWANG, Pyong So'],
      ['김원홍', 'KIM, Won Hong'],
      ['리병철', 'RI, Pyong Chol'],
      ['리만건', 'RI, Man Gon'],
      ['리수용', 'RI, Su Yong'],
      ['최휘', 'CHOE, Hwi'],
      ['김기남', 'KIM, Ki Nam'],
      ['조연준', 'JO, Yon Jun'],
      ['오극렬', 'O, Kuk Ryol'],
      ['김영철', 'KIM, Yong Chol'],
    ];
    const notFound = officials.filter(
      ([hangul, listed]) =>
        !matcher
          .screen({ name: hangul, threshold: 85 })
          .sanction.some((r) => [r.name, ...r.aliases].some((n) => n.toUpperCase().replace(/-/g, ' ') === listed.toUpperCase())),
    );
    expect(notFound).toEqual([]);
  });

  it('does not flag common Korean names that no list carries', () => {
    for (const name of ['김철수', '박지성', '이명박', '문재인', '김민준', '이서연', '박서준', '최지우'])
      expect({ name, hits: matcher.screen({ name, threshold: 85 }).sanction.map((r) => r.name) }).toEqual({ name, hits: [] });
  });
});
