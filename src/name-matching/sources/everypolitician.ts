/**
 * EveryPolitician term CSVs (Nigeria's 8th National Assembly) → PEP entries.
 * Only public-office facts are kept: an `email` column, if present, is never read.
 * "(Deceased) " prefixes the name upstream; it becomes `deceased: true` and leaves the name.
 * A person in several files (a senator who was also a representative) becomes one entry with both positions.
 */
import { blankEntry, type ListEntry, type ScreeningList } from '../records.js';
import { listIdentity, parseCsvObjects, parseGender, pushUnique } from './common.js';

const DECEASED = /^\(deceased\)\s*/i;

function positionTitle(row: Record<string, string>): string {
  const chamber = row.chamber || 'Senate';
  const role = /senate/i.test(chamber) ? 'Senator' : 'Member, House of Representatives';
  const term = row.term ? ` (Nigerian National Assembly, term ${row.term})` : '';
  return [role, row.area].filter((s) => s).join(', ') + term;
}

export function parseEveryPolitician(texts: readonly string[], options: { listName: string }): ScreeningList {
  const { contentHash, version } = listIdentity(texts);
  const byId = new Map<string, ListEntry>();
  for (const text of texts) {
    for (const row of parseCsvObjects(text)) {
      const rawName = row.name?.trim();
      if (!row.id || !rawName) continue;
      const deceased = DECEASED.test(rawName);
      const name = rawName.replace(DECEASED, '');
      const entry =
        byId.get(row.id) ??
        blankEntry({
          _id: `${options.listName}:${row.id}`,
          externalId: row.id,
          type: 'pep',
          name,
          countries: ['ng'],
          entityType: 'Person',
          dataset: [{ name: 'EveryPolitician: Nigeria', url: 'https://everypolitician.org/nigeria/' }],
          overview: row.wikidata ? `Wikidata: ${row.wikidata}` : '',
          listName: options.listName,
          listVersion: version,
        });
      entry.deceased ||= deceased;
      entry.gender ??= parseGender(row.gender);
      entry.photo ??= row.image || null;
      pushUnique(entry.politicalParty, row.group);
      const sortName = row.sort_name?.replace(DECEASED, '');
      if (sortName && sortName !== name) pushUnique(entry.aliases, sortName);
      entry.positions.push({
        title: positionTitle(row),
        startDate: row.start_date || null,
        endDate: row.end_date || null,
        _id: `${row.id}:position:${entry.positions.length}`,
      });
      byId.set(row.id, entry);
    }
  }
  return { name: options.listName, type: 'pep', version, contentHash, publishedAt: null, entries: [...byId.values()] };
}
