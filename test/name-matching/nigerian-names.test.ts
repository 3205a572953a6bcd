// Common Nigerian names, none of them listed (nigerian-names/README.md): a Nigerian customer base screens such
// names all day, and a confidence of 100 means the same name, so none may reach it.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Matcher } from '../../src/name-matching/matcher.js';
import type { ScreeningList } from '../../src/name-matching/records.js';
import { embeddedFixture, LOAD_TIMEOUT } from './embedded-matcher.js';
import { buildNigerianNames, isListed, listedKeys, NIGERIAN_NAMES_FILE, readNigerianNames } from './nigerian-names.js';

let lists: ScreeningList[];
let matcher: Matcher;
const names = readNigerianNames();

beforeAll(async () => {
  ({ lists, matcher } = await embeddedFixture());
}, LOAD_TIMEOUT);

describe('common Nigerian names', () => {
  it('ships what the build makes from its sources: 2,500 names, none of them a listed name', () => {
    const { names: built, listed } = buildNigerianNames(lists);
    expect(readFileSync(NIGERIAN_NAMES_FILE, 'utf8')).toBe(`name\n${built.join('\n')}\n`);
    expect(names).toHaveLength(2500);
    // Drawn names that are listed are left out: the build does meet some.
    expect(listed.length).toBeGreaterThan(0);
    const keys = listedKeys(lists);
    expect(names.filter((n) => isListed(keys, n))).toEqual([]);
  });

  it('draws names of every part of the country, and particles as Nigerians write them', () => {
    const count = (re: RegExp) => names.filter((n) => re.test(n)).length;
    expect(count(/\b(?:Muhammad|Mohammed|Abubakar|Ibrahim|Musa|Bello|Sani)\b/)).toBeGreaterThan(300);
    expect(count(/\b(?:Ade|Olu|Oluwa|Ola)\w+/)).toBeGreaterThan(100);
    expect(count(/\b(?:Chukwu|Nw|Ifeanyi|Obi|Eze)\w*/)).toBeGreaterThan(50);
    expect(count(/\b(?:Abdul|Abdu|Abu)\b/)).toBeGreaterThan(10);
  });

  it('never scores 100 on any list', () => {
    const perfect = names.filter((name) => {
      const { pep, sanction } = matcher.screen({ name, threshold: 100, limit: 1 });
      return pep.length + sanction.length > 0;
    });
    expect(perfect).toEqual([]);
  });
});
