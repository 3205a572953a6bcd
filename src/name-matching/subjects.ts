/**
 * Subjects: the entries of several lists that designate one person or organisation, so that a reviewer decides
 * once. Someone on both the OFAC and the UN list is one subject with both entries and both programmes.
 *
 * Two entries of different lists are one subject when they are of the same list type and entity type, share a
 * normalised name (in any order, aliases included) and, for people, a year of birth. Organisations need a name
 * of two words at least. Entries naming the same Wikidata item are one subject whatever their names. A key shared by two entries of the same list is ambiguous (namesakes) and joins nothing,
 * and no subject ever holds two entries of one list.
 */
import type { IndexedEntry } from './name-index.js';
import { normaliseName } from './normalise.js';
import { birthYears } from './sources/dates.js';

/** The Wikidata item an entry names (Wikidata-derived lists use it as their id; EveryPolitician cites it). */
function wikidataId(entry: IndexedEntry['entry']): string | null {
  if (/^Q\d+$/.test(entry.externalId)) return entry.externalId;
  return /\bWikidata: (Q\d+)\b/.exec(entry.overview)?.[1] ?? null;
}

function keysOf({ entry, listType }: IndexedEntry): string[] {
  const wikidata = wikidataId(entry);
  if (wikidata) return [`${listType}|wikidata|${wikidata}`];
  const person = entry.entityType === 'Person';
  const years = person ? [...new Set(birthYears(entry.birth_date))] : [''];
  if (!years.length) return [];
  const keys: string[] = [];
  for (const name of [entry.name, ...entry.aliases]) {
    const tokens = normaliseName(name);
    if (tokens.length < 2) continue;
    const sorted = [...tokens].sort().join(' ');
    for (const year of years) keys.push(`${listType}|${entry.entityType}|${sorted}|${year}`);
  }
  return keys;
}

export function subjectsOf(entries: readonly IndexedEntry[]): {
  subjectOf: Int32Array;
  subjectEntries: Map<number, number[]>;
} {
  const byKey = new Map<string, number[]>();
  entries.forEach((e, i) => {
    for (const key of new Set(keysOf(e))) {
      const list = byKey.get(key);
      if (list) list.push(i);
      else byKey.set(key, [i]);
    }
  });
  const subjectOf = Int32Array.from(entries, (_, i) => i);
  const members = new Map<number, number[]>();
  const root = (i: number): number => subjectOf[i]!;
  for (const ids of byKey.values()) {
    if (ids.length < 2) continue;
    const lists = ids.map((i) => entries[i]!.listName);
    if (new Set(lists).size !== lists.length) continue;
    for (const other of ids.slice(1)) {
      const a = root(ids[0]!);
      const b = root(other);
      if (a === b) continue;
      const aMembers = members.get(a) ?? [a];
      const bMembers = members.get(b) ?? [b];
      const aLists = new Set(aMembers.map((i) => entries[i]!.listName));
      if (bMembers.some((i) => aLists.has(entries[i]!.listName))) continue;
      const [keep, drop] = a < b ? [a, b] : [b, a];
      const merged = [...aMembers, ...bMembers].sort((x, y) => x - y);
      for (const i of merged) subjectOf[i] = keep;
      members.set(keep, merged);
      members.delete(drop);
    }
  }
  return { subjectOf, subjectEntries: members };
}
