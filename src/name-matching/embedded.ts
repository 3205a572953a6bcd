/**
 * The lists bundled with the project (src/name-matching/data, see its README): OFAC SDN, OFAC consolidated
 * non-SDN, UN Security Council consolidated list, UK OFSI consolidated list, and Nigerian PEPs (the 8th National
 * Assembly from EveryPolitician; office-holders 1999–2022 and their relatives from Wikidata).
 */
import { readFileSync } from 'node:fs';
import type { Logger } from '../logger.js';
import { blankEntry, type ListEntry, type ScreeningList } from './records.js';
import { dataPath } from './data-path.js';
import { derivedKey, readDerived, writeDerived } from './derived-cache.js';
import { parseOfacCsv } from './sources/ofac-csv.js';
import { parseUnXml } from './sources/un-xml.js';
import { parseEveryPolitician } from './sources/everypolitician.js';
import { parseOfsiXlsx } from './sources/ofsi-xlsx.js';
import { parseWikidataPep } from './sources/wikidata-pep.js';

export const EMBEDDED_LIST_NAMES = [
  'ofac-sdn',
  'ofac-consolidated',
  'un-sc-consolidated',
  'uk-ofsi-consolidated',
  'pep-nigeria-nass',
  'pep-nigeria-wikidata',
] as const;

const SOURCE_FILES = [
  'ofac-sdn/sdn.csv',
  'ofac-sdn/alt.csv',
  'ofac-sdn/add.csv',
  'ofac-cons/cons_prim.csv',
  'ofac-cons/cons_alt.csv',
  'ofac-cons/cons_add.csv',
  'ofac-cons/cons_comments.csv',
  'un/UN_consolidated.xml',
  'uk-ofsi/ConList.xlsx',
  'pep-nigeria/senate-term-8.csv',
  'pep-nigeria/representatives-term-8.csv',
  'pep-nigeria-wikidata/holders21.csv',
  'pep-nigeria-wikidata/legislators.csv',
  'pep-nigeria-wikidata/family.csv',
] as const;

type Sources = ReadonlyMap<(typeof SOURCE_FILES)[number], Buffer>;

const readSources = (): Sources => new Map(SOURCE_FILES.map((f) => [f, readFileSync(dataPath(f))]));

/** Parses the bundled lists from their sources, every time (the XLSX reader is asynchronous). */
export async function parseEmbeddedLists(sources: Sources = readSources()): Promise<ScreeningList[]> {
  const text = (file: (typeof SOURCE_FILES)[number]): string => sources.get(file)!.toString('utf8');
  return [
    parseOfacCsv(
      { primary: text('ofac-sdn/sdn.csv'), alt: text('ofac-sdn/alt.csv'), add: text('ofac-sdn/add.csv') },
      { listName: 'ofac-sdn', datasetName: 'OFAC Specially Designated Nationals (SDN) List' },
    ),
    parseOfacCsv(
      {
        primary: text('ofac-cons/cons_prim.csv'),
        alt: text('ofac-cons/cons_alt.csv'),
        add: text('ofac-cons/cons_add.csv'),
        comments: text('ofac-cons/cons_comments.csv'),
      },
      { listName: 'ofac-consolidated', datasetName: 'OFAC Consolidated Sanctions List (non-SDN)' },
    ),
    parseUnXml(text('un/UN_consolidated.xml'), { listName: 'un-sc-consolidated' }),
    await parseOfsiXlsx(sources.get('uk-ofsi/ConList.xlsx')!, { listName: 'uk-ofsi-consolidated' }),
    parseEveryPolitician([text('pep-nigeria/senate-term-8.csv'), text('pep-nigeria/representatives-term-8.csv')], {
      listName: 'pep-nigeria-nass',
    }),
    parseWikidataPep(
      {
        holders: text('pep-nigeria-wikidata/holders21.csv'),
        legislators: text('pep-nigeria-wikidata/legislators.csv'),
        family: text('pep-nigeria-wikidata/family.csv'),
      },
      { listName: 'pep-nigeria-wikidata' },
    ),
  ];
}

/** blankEntry's defaults, without the fields every entry states. */
const { _id, externalId, type, name, listName, listVersion, ...BLANK } = blankEntry({
  _id: '',
  externalId: '',
  type: 'pep',
  name: '',
  listName: '',
  listVersion: '',
});
const DEFAULTS: Readonly<Record<string, unknown>> = BLANK;

/** An entry without the fields that hold blankEntry's defaults: most entries leave most fields empty. */
function compact(entry: ListEntry): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(entry)) {
    const blank = Object.hasOwn(DEFAULTS, field) ? DEFAULTS[field] : undefined;
    if (blank !== undefined && (value === blank || (Array.isArray(value) && value.length === 0 && Array.isArray(blank)))) continue;
    out[field] = value;
  }
  return out;
}

interface CachedLists {
  key: string;
  lists: (Omit<ScreeningList, 'entries'> & { entries: Record<string, unknown>[] })[];
}

export interface ListCacheOptions {
  /** Folder of derived files (parsed lists, built indexes); none: nothing is cached on disk. */
  cacheDir?: string;
  logger?: Logger;
}

/**
 * The bundled lists, read from the cache folder when it holds them parsed from these very sources by this very
 * code, else parsed and written there.
 */
export async function readEmbeddedLists({ cacheDir, logger }: ListCacheOptions = {}): Promise<ScreeningList[]> {
  const sources = readSources();
  if (!cacheDir) return parseEmbeddedLists(sources);
  const key = derivedKey([...sources].flat());
  try {
    const file = await readDerived(cacheDir, 'lists', key, 'json');
    const cached = file && (JSON.parse(file.toString('utf8')) as CachedLists);
    if (cached && cached.key === key)
      return cached.lists.map((l) => ({ ...l, entries: l.entries.map((e) => blankEntry(e as Parameters<typeof blankEntry>[0])) }));
  } catch (error) {
    logger?.warn({ err: error, cacheDir }, 'cached screening lists unreadable; parsing the sources');
  }
  const lists = await parseEmbeddedLists(sources);
  const cached: CachedLists = { key, lists: lists.map((l) => ({ ...l, entries: l.entries.map(compact) })) };
  await writeDerived(cacheDir, 'lists', key, 'json', JSON.stringify(cached)).catch((error: unknown) =>
    logger?.warn({ err: error, cacheDir }, 'parsed screening lists could not be cached'),
  );
  return lists;
}

let loading: Promise<ScreeningList[]> | undefined;

/**
 * The bundled lists, read once per process and shared by every engine it starts (the first caller's cache folder
 * is the one used).
 */
export function loadEmbeddedLists(options: ListCacheOptions = {}): Promise<ScreeningList[]> {
  loading ??= readEmbeddedLists(options).catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}
