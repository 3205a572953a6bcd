import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { ValidationError } from '../errors.js';
import type { ScreeningList } from '../name-matching/records.js';
import { parseNameCsv } from '../name-matching/sources/csv.js';
import { parseEveryPolitician } from '../name-matching/sources/everypolitician.js';
import { parseFtmJson } from '../name-matching/sources/ftm-json.js';
import { parseOfacCsv } from '../name-matching/sources/ofac-csv.js';
import { parseUnXml } from '../name-matching/sources/un-xml.js';
import { parseOfsiXlsx } from '../name-matching/sources/ofsi-xlsx.js';
import { parseWikidataPep } from '../name-matching/sources/wikidata-pep.js';
import type { ListFormat } from './events.js';

export const LIST_FORMATS: readonly ListFormat[] = [
  'ofac-csv',
  'un-xml',
  'ofsi-xlsx',
  'ftm-json',
  'csv',
  'everypolitician',
  'wikidata-pep',
];

/** OFAC publishes each list as a primary file plus alias, address and comment files beside it. */
const OFAC_SETS = [
  { list: 'ofac-sdn', primary: 'sdn.csv', alt: 'alt.csv', add: 'add.csv', comments: 'sdn_comments.csv' },
  { list: 'ofac-consolidated', primary: 'cons_prim.csv', alt: 'cons_alt.csv', add: 'cons_add.csv', comments: 'cons_comments.csv' },
] as const;

const readText = (path: string) => readFileSync(path, 'utf8');
const optional = (path: string) => (existsSync(path) ? readText(path) : undefined);

function readOfac(path: string, list: string | undefined): ScreeningList {
  const isDir = statSync(path).isDirectory();
  const dir = isDir ? path : dirname(path);
  const set = OFAC_SETS.find((s) => (isDir ? existsSync(join(dir, s.primary)) : basename(path).toLowerCase() === s.primary));
  const primary = isDir ? join(dir, set?.primary ?? 'sdn.csv') : path;
  if (!existsSync(primary)) throw new ValidationError(`no sdn.csv or cons_prim.csv in ${path}`, 'path');
  const files = set
    ? {
        primary: readText(primary),
        alt: optional(join(dir, set.alt)),
        add: optional(join(dir, set.add)),
        comments: optional(join(dir, set.comments)),
      }
    : { primary: readText(primary) };
  return parseOfacCsv(files, { listName: list ?? set?.list ?? 'ofac-sdn' });
}

/** The folder of every-politician-scrapers' Wikidata exports: holders21.csv, legislators.csv and family.csv. */
function readWikidataPep(path: string, list: string | undefined): ScreeningList {
  const dir = statSync(path).isDirectory() ? path : dirname(path);
  const holders = join(dir, 'holders21.csv');
  const legislators = join(dir, 'legislators.csv');
  if (!existsSync(holders) || !existsSync(legislators)) throw new ValidationError(`no holders21.csv and legislators.csv in ${dir}`, 'path');
  return parseWikidataPep(
    { holders: readText(holders), legislators: readText(legislators), family: optional(join(dir, 'family.csv')) },
    { listName: list ?? 'pep-nigeria-wikidata' },
  );
}

/**
 * Reads and parses a list file (or, for OFAC, a folder or the primary file with its siblings) with the screening
 * core's parsers. Without `--list`, OFAC and UN files keep their usual names, other files are named after the file.
 */
export async function readListSource(format: ListFormat, path: string, list?: string): Promise<ScreeningList> {
  if (!existsSync(path)) throw new ValidationError(`${path} does not exist`, 'path');
  const fileName = basename(path, extname(path));
  switch (format) {
    case 'ofac-csv':
      return readOfac(path, list);
    case 'un-xml':
      return parseUnXml(readText(path), { listName: list ?? 'un-sc-consolidated' });
    case 'ftm-json':
      return parseFtmJson(readText(path), { listName: list ?? fileName });
    case 'csv':
      return parseNameCsv(readText(path), { listName: list ?? fileName });
    case 'everypolitician':
      return parseEveryPolitician([readText(path)], { listName: list ?? fileName });
    case 'ofsi-xlsx':
      return parseOfsiXlsx(readFileSync(path), { listName: list ?? 'uk-ofsi-consolidated' });
    case 'wikidata-pep':
      return readWikidataPep(path, list);
  }
}
