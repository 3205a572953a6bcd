/**
 * Common Nigerian names (Hausa, Fulani, Kanuri, Yoruba, Igbo, Edo, Efik…), none of them listed: the names a
 * Nigerian customer base screens every day, for measuring how often they hit a sanctions list. Built
 * deterministically from public name lists (nigerian-names/README.md): the given names and surnames of Nigeria's
 * office-holders 1999–2022 on Wikidata (CC0), as often as they occur there, and the Nigerian given names and
 * surnames of @faker-js/faker's en_NG locale (MIT). `npx tsx test/name-matching/nigerian-names/build.ts` writes
 * nigerian-names/names.csv; nigerian-names.test.ts checks that the file is what this builds.
 */
import { readFileSync } from 'node:fs';
import { dataPath } from '../../src/name-matching/data-path.js';
import { nameForms } from '../../src/name-matching/normalise.js';
import type { ScreeningList } from '../../src/name-matching/records.js';
import { readCsv } from '../../src/name-matching/sources/csv-reader.js';
import { seededRandom } from '../../src/random.js';

export const NIGERIAN_NAMES_FILE = new URL('./nigerian-names/names.csv', import.meta.url);
const FAKER_FILE = new URL('./nigerian-names/faker-en-ng.json', import.meta.url);
const WIKIDATA_FILES = ['pep-nigeria-wikidata/legislators.csv', 'pep-nigeria-wikidata/holders21.csv'];

/** A name part as Wikidata labels write it: a capitalised word (no initials, no "Jr.", no bracketed notes). */
const PART = /^\p{Lu}[\p{Ll}'’-]+$/u;
/** Titles some labels keep ("Alhaji Musa Bello"): not name parts. */
const TITLES = new Set(['Alhaji', 'Alhaja', 'Chief', 'Senator', 'Dr', 'Prince', 'Princess', 'Sir', 'Mrs', 'Engr', 'Hajiya', 'Mallam']);

/** Each name part with how often it occurs: given names (first and middle words) and surnames (last words). */
export function nigerianNameParts(): { given: Map<string, number>; surnames: Map<string, number> } {
  const given = new Map<string, number>();
  const surnames = new Map<string, number>();
  const count = (map: Map<string, number>, part: string) => map.set(part, (map.get(part) ?? 0) + 1);
  const people = new Set<string>();
  for (const file of WIKIDATA_FILES) {
    const [header, ...rows] = readCsv(readFileSync(dataPath(file), 'utf8'));
    const column = header!.indexOf('person');
    for (const row of rows) if (row[column]) people.add(row[column]!);
  }
  for (const person of [...people].sort()) {
    const parts = person.split(/\s+/).filter((p) => PART.test(p) && !TITLES.has(p));
    if (parts.length < 2) continue;
    for (const p of parts.slice(0, -1)) count(given, p);
    count(surnames, parts[parts.length - 1]!);
  }
  const faker = JSON.parse(readFileSync(FAKER_FILE, 'utf8')) as { firstNames: string[]; lastNames: string[] };
  for (const p of faker.firstNames) count(given, p);
  for (const p of faker.lastNames) count(surnames, p);
  return { given, surnames };
}

/** Draws a part as often as it occurs. */
function drawer(parts: Map<string, number>, random: () => number): () => string {
  const names = [...parts.keys()];
  const cumulative: number[] = [];
  let total = 0;
  for (const n of names) cumulative.push((total += parts.get(n)!));
  return () => {
    const x = random() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cumulative[mid]! > x) hi = mid;
      else lo = mid + 1;
    }
    return names[lo]!;
  };
}

/**
 * The forms of a name as the matcher reads them (titles, particles and case normalised; short given names spelled
 * out: nameForms), each as its words in any order.
 */
export const formKeys = (name: string, person?: boolean): string[] => nameForms(name, { person }).map((f) => [...f].sort().join(' '));

/** Every form of every name and alias of `lists`, as formKeys reads them. */
export function listedKeys(lists: readonly ScreeningList[]): Set<string> {
  const keys = new Set<string>();
  for (const list of lists)
    for (const e of list.entries)
      for (const n of [e.name, ...e.aliases]) for (const k of formKeys(n, e.entityType === 'Person')) keys.add(k);
  return keys;
}

/** Whether one of the forms of `name` is one of `keys` (listedKeys). */
export const isListed = (keys: ReadonlySet<string>, name: string): boolean => formKeys(name).some((k) => keys.has(k));

/**
 * `count` distinct names: a given name and a surname, one in four with a second given name ("Abubakar Sani Bello"),
 * each part drawn as often as it occurs in the sources. A name that is, word for word in any order, a name or alias
 * of any bundled list (sanctions or PEP), in one of the forms the matcher reads ("Tunde Fashola" is Babatunde
 * Fashola), is left out and counted in `listed`.
 */
export function buildNigerianNames(lists: readonly ScreeningList[], count = 2500, seed = 45): { names: string[]; listed: string[] } {
  const { given, surnames } = nigerianNameParts();
  const random = seededRandom(seed);
  const first = drawer(given, random);
  const last = drawer(surnames, random);
  const keys = listedKeys(lists);
  const names = new Set<string>();
  const listed = new Set<string>();
  while (names.size < count) {
    const parts = [first()];
    if (random() < 0.25) parts.push(first());
    parts.push(last());
    if (new Set(parts).size < parts.length) continue;
    const name = parts.join(' ');
    if (isListed(keys, name)) listed.add(name);
    else names.add(name);
  }
  return { names: [...names], listed: [...listed] };
}

export function readNigerianNames(): string[] {
  return readCsv(readFileSync(NIGERIAN_NAMES_FILE, 'utf8'))
    .slice(1)
    .map((r) => r[0]!);
}
