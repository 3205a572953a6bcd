/**
 * Nigerian politically exposed persons from Wikidata (CC0), as every-politician-scrapers/nigeria exports them:
 * `holders21.csv` (president, vice-president, ministers, governors and deputies, service chiefs, CBN governor…)
 * and `legislators.csv` (senators and representatives), both `position,person,personID,start,end,gender,DOB,DOD,
 * image,enwiki`, one row per term; and `family.csv` (`id,name,relationship,relative,relativename`), their relatives
 * and close associates.
 *
 * A PEP stays one after leaving office (FATF Recommendation 12): every office is kept with its dates, and the
 * overview says which are former. A relative who holds no office of their own is an entry of their own, related to
 * the PEP; one who does (a senator married to a governor) gets the relation added to their entry.
 */
import { blankEntry, type ListEntry, type ScreeningList } from '../records.js';
import { listIdentity, parseCsvObjects, parseGender, pushUnique } from './common.js';

export interface WikidataPepFiles {
  holders: string;
  legislators: string;
  family?: string;
}

const DATASET = { name: 'Wikidata: Nigerian office-holders 1999–2022 (CC0)', url: 'https://www.wikidata.org/' };

const commonsUrl = (file: string) => `https://commons.wikimedia.org/wiki/Special:FilePath/${encodeURIComponent(file)}`;

function term(p: { title: string; startDate: string | null; endDate: string | null }): string {
  return `${p.title} (${p.startDate ?? '?'}–${p.endDate ?? ''})`;
}

/** The offices, current (open on the day the data was taken) and former, with their dates. */
function describe(entry: ListEntry): string {
  const current = entry.positions.filter((p) => !p.endDate);
  const former = entry.positions.filter((p) => p.endDate);
  const parts = [];
  if (current.length) parts.push(`In office when the data was taken (2022-07-24): ${current.map(term).join('; ')}`);
  if (former.length) parts.push(`Former: ${former.map(term).join('; ')}`);
  return `Politically exposed person (Wikidata ${entry.externalId}). ${parts.join('. ')}.`;
}

export function parseWikidataPep(files: WikidataPepFiles, options: { listName: string }): ScreeningList {
  const { contentHash, version } = listIdentity([files.holders, files.legislators, files.family ?? '']);
  const byId = new Map<string, ListEntry>();
  for (const row of [...parseCsvObjects(files.holders), ...parseCsvObjects(files.legislators)]) {
    const id = row.personid?.trim();
    const name = row.person?.trim();
    if (!id || !name || !row.position) continue;
    let entry = byId.get(id);
    if (!entry) {
      entry = blankEntry({
        _id: `${options.listName}:${id}`,
        externalId: id,
        type: 'pep',
        name,
        countries: ['ng'],
        entityType: 'Person',
        dataset: [DATASET],
        listName: options.listName,
        listVersion: version,
      });
      byId.set(id, entry);
    }
    if (row.enwiki && row.enwiki !== entry.name) pushUnique(entry.aliases, row.enwiki);
    entry.birth_date ??= row.dob || null;
    entry.deceased ||= Boolean(row.dod);
    entry.gender ??= parseGender(row.gender);
    entry.photo ??= row.image ? commonsUrl(row.image) : null;
    const startDate = row.start || null;
    const endDate = row.end || null;
    if (!entry.positions.some((p) => p.title === row.position && p.startDate === startDate))
      entry.positions.push({ title: row.position, startDate, endDate, _id: `${id}:position:${entry.positions.length}` });
  }
  for (const entry of byId.values()) entry.overview = describe(entry);

  const relatives = new Map<string, ListEntry>();
  for (const row of files.family ? parseCsvObjects(files.family) : []) {
    const pep = byId.get(row.id?.trim() ?? '');
    const relativeId = row.relative?.trim();
    const relativeName = row.relativename?.trim();
    if (!pep || !relativeId || !relativeName) continue;
    const relationship = row.relationship?.trim() || 'relative';
    const link = { _id: pep._id, name: pep.name, relationship };
    const own = byId.get(relativeId);
    let entry = own ?? relatives.get(relativeId);
    if (!entry) {
      entry = blankEntry({
        _id: `${options.listName}:${relativeId}`,
        externalId: relativeId,
        type: 'pep',
        name: relativeName,
        countries: ['ng'],
        entityType: 'Person',
        dataset: [DATASET],
        listName: options.listName,
        listVersion: version,
        relatedTo: [],
      });
      relatives.set(relativeId, entry);
    }
    entry.relatedTo ??= [];
    if (entry.relatedTo.some((r) => r._id === link._id && r.relationship === relationship)) continue;
    entry.relatedTo.push(link);
    const offices = pep.positions.map(term).join('; ');
    const line = `Relative or close associate (${relationship}) of ${pep.name}: ${offices}.`;
    entry.overview = own ? `${entry.overview} ${line}` : [entry.overview, line].filter((s) => s).join(' ');
  }
  const entries = [...byId.values(), ...relatives.values()];
  return { name: options.listName, type: 'pep', version, contentHash, publishedAt: '2022-07-24', entries };
}
