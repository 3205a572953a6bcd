/**
 * The record a subject on several lists is shown as: its best-scoring entry, with what the other lists add
 * (names as aliases, programmes, countries, birth dates, addresses, positions, datasets), and `sources` naming
 * every list's entry so a reviewer sees each designation.
 */
import type { ListEntry, SourceEntry } from './records.js';

const source = (e: ListEntry): SourceEntry => ({
  listName: e.listName,
  listVersion: e.listVersion,
  _id: e._id,
  externalId: e.externalId,
  name: e.name,
  sanctions: e.sanctions,
  dataset: e.dataset,
  firstSeen: e.firstSeen,
  lastUpdated: e.lastUpdated,
});

function union<T>(values: T[][], key: (v: T) => string = String): T[] {
  const seen = new Map<string, T>();
  for (const list of values) for (const v of list) if (!seen.has(key(v))) seen.set(key(v), v);
  return [...seen.values()];
}

export function subjectRecord(primary: ListEntry, members: readonly ListEntry[]): ListEntry & { sources: SourceEntry[] } {
  const all = [primary, ...members.filter((m) => m !== primary)];
  if (all.length === 1) return { ...primary, sources: [source(primary)] };
  const birthDates = union(all.map((e) => (e.birth_date ? e.birth_date.split(';') : [])));
  return {
    ...primary,
    aliases: union(all.map((e) => [e.name, ...e.aliases])).filter((n) => n !== primary.name),
    weakAliases: union(all.map((e) => e.weakAliases ?? [])),
    birth_date: birthDates.length ? birthDates.join(';') : null,
    countries: union(all.map((e) => e.countries)),
    gender: primary.gender ?? all.find((e) => e.gender)?.gender ?? null,
    deceased: all.some((e) => e.deceased),
    politicalParty: union(all.map((e) => e.politicalParty)),
    positions: union(
      all.map((e) => e.positions),
      (p) => p._id,
    ),
    dataset: union(
      all.map((e) => e.dataset),
      (d) => d.name,
    ),
    sanctions: union(all.map((e) => e.sanctions)),
    overview: all
      .map((e) => e.overview)
      .filter((o) => o)
      .join('\n\n'),
    addresses: union(all.map((e) => e.addresses)),
    relatedTo: union(
      all.map((e) => e.relatedTo ?? []),
      (r) => `${r._id}|${r.relationship}`,
    ),
    sources: all.map(source),
  };
}
