/**
 * OFAC legacy CSV files (SDN: sdn/alt/add/sdn_comments.csv; Consolidated: cons_prim/alt/add/comments.csv).
 * The primary file has no header: ent_num, name, type, program, title, call sign, vessel type, tonnage,
 * GRT, flag, owner, remarks. Secondary files key on ent_num. Remarks carry DOB, nationality, gender and
 * inline a.k.a.'s; the comments file continues remarks that overflowed.
 */
import { blankEntry, type EntityType, type ListEntry, type ScreeningList } from '../records.js';
import { countryCode } from '../countries.js';
import { parseOfacDate } from './dates.js';
import { groupByFirstCell, listIdentity, parseCsvRows, pushUnique } from './common.js';
import { lookupTable } from '../../own-keys.js';

export interface OfacFiles {
  primary: string;
  alt?: string;
  add?: string;
  comments?: string;
}

export interface OfacOptions {
  listName: string;
  datasetName?: string;
  datasetUrl?: string;
}

const ENTITY_TYPES = lookupTable<EntityType>({
  individual: 'Person',
  vessel: 'Vessel',
  aircraft: 'Aircraft',
});

interface RemarkFacts {
  birthDates: string[];
  countries: string[];
  gender: 'male' | 'female' | null;
  aliases: string[];
}

function parseRemarks(remarks: string): RemarkFacts {
  const facts: RemarkFacts = { birthDates: [], countries: [], gender: null, aliases: [] };
  for (const raw of remarks.split(/;\s*/)) {
    const part = raw.trim().replace(/\.$/, '');
    let m: RegExpExecArray | null;
    if ((m = /^(?:alt\. )?DOB (.+)$/.exec(part))) pushUnique(facts.birthDates, parseOfacDate(m[1]!));
    else if ((m = /^(?:alt\. )?(?:nationality|citizen|Nationality of Registration) (.+)$/i.exec(part)))
      pushUnique(facts.countries, countryCode(m[1]));
    else if ((m = /^Gender (Male|Female)$/i.exec(part))) facts.gender = m[1]!.toLowerCase() as 'male' | 'female';
    else if ((m = /^[afn]\.k\.a\.,? '(.+)'$/.exec(part))) pushUnique(facts.aliases, m[1]);
  }
  return facts;
}

function formatAddress(row: string[]): { text: string; country: string | null } {
  const [, , street, city, country, note] = row;
  const text = [street, city, country, note].filter((p) => p).join(', ');
  return { text, country: countryCode(country) };
}

export function parseOfacCsv(files: OfacFiles, options: OfacOptions): ScreeningList {
  const { contentHash, version } = listIdentity([files.primary, files.alt ?? '', files.add ?? '', files.comments ?? '']);
  const alts = groupByFirstCell(files.alt ? parseCsvRows(files.alt, { header: false }) : []);
  const adds = groupByFirstCell(files.add ? parseCsvRows(files.add, { header: false }) : []);
  const comments = groupByFirstCell(files.comments ? parseCsvRows(files.comments, { header: false }) : []);
  const dataset = [{ name: options.datasetName ?? options.listName, url: options.datasetUrl ?? 'https://sanctionslist.ofac.treas.gov/' }];

  const entries: ListEntry[] = [];
  for (const row of parseCsvRows(files.primary, { header: false })) {
    const [entNum, name, type = '', program = '', title = '', , , , , flag = ''] = row;
    if (!entNum || !name) continue;
    // The comments file continues remarks that overflowed, mid-word, so the parts join without a space.
    const remarks = [row[11] ?? '', ...(comments.get(entNum) ?? []).map((c) => c[1] ?? '')].join('');
    const facts = parseRemarks(remarks);
    const aliases: string[] = [];
    for (const alt of alts.get(entNum) ?? []) pushUnique(aliases, alt[3]);
    for (const alias of facts.aliases) pushUnique(aliases, alias);
    const countries = [...facts.countries];
    pushUnique(countries, countryCode(flag));
    const addresses: string[] = [];
    for (const add of adds.get(entNum) ?? []) {
      const { text, country } = formatAddress(add);
      pushUnique(addresses, text);
      pushUnique(countries, country);
    }
    entries.push(
      blankEntry({
        _id: `${options.listName}:${entNum}`,
        externalId: entNum,
        type: 'sanction',
        name,
        aliases: aliases.filter((a) => a !== name),
        birth_date: facts.birthDates.length ? facts.birthDates.join(';') : null,
        countries,
        entityType: ENTITY_TYPES[type.toLowerCase()] ?? 'Organization',
        gender: facts.gender,
        dataset,
        sanctions: program
          .split(/\]\s*\[/)
          .map((p) => p.replace(/[[\]]/g, '').trim())
          .filter((p) => p),
        overview: [title, remarks].filter((p) => p).join('. '),
        addresses,
        listName: options.listName,
        listVersion: version,
      }),
    );
  }
  return { name: options.listName, type: 'sanction', version, contentHash, publishedAt: null, entries };
}
