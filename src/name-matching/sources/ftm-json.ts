/**
 * OpenSanctions / FollowTheMoney entities, one JSON object per line:
 * {id, schema, caption, properties{name[], alias[], birthDate[], country[], ...}, datasets[], first_seen, last_seen}.
 * Entities that are not screening subjects (addresses, sanctions, identifiers...) are skipped.
 */
import { z } from 'zod';
import { blankEntry, type EntityType, type ListEntry, type ListType, type ScreeningList } from '../records.js';
import { countryCode } from '../countries.js';
import { listIdentity, listTypeFor, parseGender, pushUnique } from './common.js';
import { lookupTable } from '../../own-keys.js';

const SCHEMAS = lookupTable<EntityType>({
  Person: 'Person',
  Organization: 'Organization',
  Company: 'Organization',
  LegalEntity: 'Organization',
  PublicBody: 'Organization',
  Vessel: 'Vessel',
  Airplane: 'Aircraft',
});

const entitySchema = z.object({
  id: z.string(),
  schema: z.string(),
  caption: z.string().optional(),
  properties: z.record(z.string(), z.array(z.unknown())).default({}),
  datasets: z.array(z.string()).default([]),
  first_seen: z.string().nullish(),
  last_seen: z.string().nullish(),
  last_change: z.string().nullish(),
});

export function parseFtmJson(text: string, options: { listName: string; type?: ListType }): ScreeningList {
  const { contentHash, version } = listIdentity([text]);
  const type = options.type ?? listTypeFor(options.listName);
  const entries: ListEntry[] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    const parsed = entitySchema.safeParse(JSON.parse(line));
    if (!parsed.success) throw new Error(`line ${i + 1}: not a FollowTheMoney entity: ${parsed.error.issues[0]?.message}`);
    const e = parsed.data;
    const entityType = SCHEMAS[e.schema];
    if (!entityType) return;
    const prop = (key: string): string[] => (e.properties[key] ?? []).filter((v): v is string => typeof v === 'string');
    const names = prop('name');
    const name = names[0] ?? e.caption;
    if (!name) return;
    const aliases: string[] = [];
    for (const alias of [...names.slice(1), ...prop('alias'), ...prop('previousName')]) pushUnique(aliases, alias);
    const countries: string[] = [];
    for (const c of [...prop('nationality'), ...prop('citizenship'), ...prop('country'), ...prop('jurisdiction')])
      pushUnique(countries, countryCode(c));
    const topics = prop('topics');
    entries.push(
      blankEntry({
        _id: `${options.listName}:${e.id}`,
        externalId: e.id,
        type,
        name,
        aliases: aliases.filter((a) => a !== name),
        birth_date: prop('birthDate').join(';') || null,
        countries,
        entityType,
        gender: parseGender(prop('gender')[0]),
        deceased: prop('deathDate').length > 0,
        politicalParty: prop('political'),
        positions: prop('position').map((title, n) => ({ title, startDate: null, endDate: null, _id: `${e.id}:position:${n}` })),
        education: prop('education').map((title, n) => ({ title, startDate: null, endDate: null, _id: `${e.id}:education:${n}` })),
        dataset: e.datasets.map((d) => ({ name: d, url: `https://www.opensanctions.org/datasets/${d}/` })),
        sanctions: [...prop('program'), ...topics.filter((t) => t.startsWith('sanction'))],
        overview: [...prop('notes'), ...prop('summary')].join('\n\n'),
        firstSeen: e.first_seen ?? null,
        lastUpdated: e.last_change ?? e.last_seen ?? null,
        addresses: prop('address'),
        listName: options.listName,
        listVersion: version,
      }),
    );
  });
  return { name: options.listName, type, version, contentHash, publishedAt: null, entries };
}
