/**
 * A deterministic test set of name variants of listed entries, for recall measurement (tests, bench
 * and the numbers in docs/screening.md all use this one generator). Each variant keeps the id of the entry it came from.
 */
import type { ListEntry, ScreeningList } from '../../src/name-matching/records.js';
import { foldText } from '../../src/name-matching/fold.js';
import { nameTables } from '../../src/name-matching/name-tables.js';
import { seededRandom } from '../../src/random.js';

export type VariantKind = 'natural-order' | 'typo' | 'swapped' | 'missing-middle' | 'honorific' | 'transliteration';

export interface Variant {
  kind: VariantKind;
  query: string;
  expectedId: string;
  original: string;
}

/** Person names in natural order: "LAST, First Middle" (OFAC) → "First Middle LAST". */
function words(entry: ListEntry): string[] {
  const { name } = entry;
  const comma = name.indexOf(', ');
  const natural = entry.entityType === 'Person' && comma > 0 ? `${name.slice(comma + 2)} ${name.slice(0, comma)}` : name;
  return natural.split(/\s+/).filter((w) => w);
}

/** Typos go into the distinctive words, not into legal forms ("Limited"), which the matcher ignores. */
function typoTarget(word: string): boolean {
  return word.length >= 5 && !nameTables().trailingForms.has(foldText(word));
}

function typo(word: string, random: () => number): string {
  const i = 1 + Math.floor(random() * (word.length - 2));
  const letters = 'aeioulnrst';
  switch (Math.floor(random() * 4)) {
    case 0:
      return word.slice(0, i) + letters[Math.floor(random() * letters.length)] + word.slice(i + 1);
    case 1:
      return word.slice(0, i) + word.slice(i + 1);
    case 2:
      return word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2);
    default:
      return word.slice(0, i) + word[i] + word.slice(i);
  }
}

const TRANSLITERATIONS: [RegExp, string][] = [
  [/\bmoh?amm?ed\b/i, 'Muhammad'],
  [/\bmuhamm?ad\b/i, 'Mohamed'],
  [/\babdul ?/i, 'Abd al-'],
  [/\babd al-?/i, 'Abdul'],
  [/ou/i, 'u'],
  [/kh/i, 'h'],
  [/ph/i, 'f'],
  [/\b(\w+)y\b/i, '$1i'],
  [/sh/i, 'sch'],
  [/ee/i, 'i'],
  [/\bal-/i, 'el-'],
  [/v/i, 'w'],
  [/j/i, 'dj'],
];

const PERSON_TITLES = ['Alhaji', 'Dr.', 'Sheikh', 'Chief', 'Mr', 'Engr.', 'Hajiya', 'Mallam'];
const ORG_SUFFIXES = ['Ltd', 'Limited', 'Nig. Ltd', 'Plc', 'Enterprises'];

function variantsOf(entry: ListEntry, random: () => number): Variant[] {
  const w = words(entry);
  const person = entry.entityType === 'Person';
  const make = (kind: VariantKind, query: string): Variant => ({ kind, query, expectedId: entry._id, original: entry.name });
  const out = [make('natural-order', w.join(' '))];
  const long = w.map((x, i) => [x, i] as const).filter(([x]) => typoTarget(x));
  if (long.length) {
    const [word, i] = long[Math.floor(random() * long.length)]!;
    out.push(make('typo', w.map((x, j) => (j === i ? typo(word, random) : x)).join(' ')));
  }
  // Order swaps and transliterations are properties of personal names; company names keep their order.
  if (person) out.push(make('swapped', [...w].reverse().join(' ')));
  if (person && w.length >= 3) {
    const drop = 1 + Math.floor(random() * (w.length - 2));
    out.push(make('missing-middle', w.filter((_, j) => j !== drop).join(' ')));
  }
  out.push(
    make(
      'honorific',
      person
        ? `${PERSON_TITLES[Math.floor(random() * PERSON_TITLES.length)]} ${w.join(' ')}`
        : `${w.join(' ')} ${ORG_SUFFIXES[Math.floor(random() * ORG_SUFFIXES.length)]}`,
    ),
  );
  const rule = TRANSLITERATIONS.find(([re]) => re.test(w.join(' ')));
  if (person && rule) out.push(make('transliteration', w.join(' ').replace(rule[0], rule[1])));
  return out;
}

/** `perList` entries sampled from each list (persons and organisations with at least two words). */
export function buildVariants(lists: readonly ScreeningList[], perList: number, seed = 6): Variant[] {
  const random = seededRandom(seed);
  const out: Variant[] = [];
  for (const list of lists) {
    const pool = list.entries.filter(
      (e) => (e.entityType === 'Person' || e.entityType === 'Organization') && words(e).length >= 2 && e.name.length >= 8,
    );
    for (let k = 0; k < perList && pool.length; k++) {
      const [entry] = pool.splice(Math.floor(random() * pool.length), 1);
      out.push(...variantsOf(entry!, random));
    }
  }
  return out;
}
