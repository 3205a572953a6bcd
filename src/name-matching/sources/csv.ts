/**
 * A generic name list as CSV with a header. Recognised columns (case-insensitive; others are ignored):
 * name (required), id, aliases, birth_date|dob, countries|country, gender, entity_type,
 * positions, political_party, deceased, sanctions|program, overview|notes, photo.
 * Multi-valued cells separate values with ';' or '|'.
 */
import { blankEntry, type EntityType, type ListEntry, type ListType, type ScreeningList } from '../records.js';
import { countryCode } from '../countries.js';
import { listIdentity, listTypeFor, parseCsvObjects, parseGender, pushUnique, splitMulti } from './common.js';
import { lookupTable } from '../../own-keys.js';

const ENTITY_TYPES = lookupTable<EntityType>({
  person: 'Person',
  individual: 'Person',
  organization: 'Organization',
  organisation: 'Organization',
  company: 'Organization',
  entity: 'Organization',
  vessel: 'Vessel',
  aircraft: 'Aircraft',
});

export function parseNameCsv(text: string, options: { listName: string; type?: ListType }): ScreeningList {
  const { contentHash, version } = listIdentity([text]);
  const type = options.type ?? listTypeFor(options.listName);
  const entries: ListEntry[] = [];
  parseCsvObjects(text).forEach((row, i) => {
    const name = row.name?.trim();
    if (!name) return;
    const id = row.id?.trim() || String(i + 1);
    const countries: string[] = [];
    for (const c of splitMulti(row.countries ?? row.country)) pushUnique(countries, countryCode(c));
    entries.push(
      blankEntry({
        _id: `${options.listName}:${id}`,
        externalId: id,
        type,
        name,
        aliases: splitMulti(row.aliases),
        birth_date: splitMulti(row.birth_date ?? row.dob).join(';') || null,
        countries,
        entityType: ENTITY_TYPES[(row.entity_type ?? '').toLowerCase()] ?? 'Unknown',
        gender: parseGender(row.gender),
        photo: row.photo || null,
        deceased: /^(true|yes|1)$/i.test(row.deceased ?? ''),
        politicalParty: splitMulti(row.political_party),
        positions: splitMulti(row.positions).map((title, n) => ({ title, startDate: null, endDate: null, _id: `${id}:position:${n}` })),
        sanctions: splitMulti(row.sanctions ?? row.program),
        overview: row.overview ?? row.notes ?? '',
        listName: options.listName,
        listVersion: version,
      }),
    );
  });
  return { name: options.listName, type, version, contentHash, publishedAt: null, entries };
}
