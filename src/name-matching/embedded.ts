/**
 * The lists bundled with the project (src/name-matching/data, see its README): OFAC SDN, OFAC consolidated
 * non-SDN, UN Security Council consolidated list, UK OFSI consolidated list, and Nigerian PEPs (the 8th National
 * Assembly from EveryPolitician; office-holders 1999–2022 and their relatives from Wikidata).
 */
import { readFileSync } from 'node:fs';
import type { ScreeningList } from './records.js';
import { dataPath } from './data-path.js';
import { parseOfacCsv } from './sources/ofac-csv.js';
import { parseUnXml } from './sources/un-xml.js';
import { parseEveryPolitician } from './sources/everypolitician.js';
import { parseOfsiXlsx } from './sources/ofsi-xlsx.js';
import { parseWikidataPep } from './sources/wikidata-pep.js';

const read = (relative: string): string => readFileSync(dataPath(relative), 'utf8');

export const EMBEDDED_LIST_NAMES = [
  'ofac-sdn',
  'ofac-consolidated',
  'un-sc-consolidated',
  'uk-ofsi-consolidated',
  'pep-nigeria-nass',
  'pep-nigeria-wikidata',
] as const;

let loading: Promise<ScreeningList[]> | undefined;

/** Parses every bundled list once per process (the XLSX reader is asynchronous). */
export function loadEmbeddedLists(): Promise<ScreeningList[]> {
  loading ??= (async () => [
    parseOfacCsv(
      { primary: read('ofac-sdn/sdn.csv'), alt: read('ofac-sdn/alt.csv'), add: read('ofac-sdn/add.csv') },
      { listName: 'ofac-sdn', datasetName: 'OFAC Specially Designated Nationals (SDN) List' },
    ),
    parseOfacCsv(
      {
        primary: read('ofac-cons/cons_prim.csv'),
        alt: read('ofac-cons/cons_alt.csv'),
        add: read('ofac-cons/cons_add.csv'),
        comments: read('ofac-cons/cons_comments.csv'),
      },
      { listName: 'ofac-consolidated', datasetName: 'OFAC Consolidated Sanctions List (non-SDN)' },
    ),
    parseUnXml(read('un/UN_consolidated.xml'), { listName: 'un-sc-consolidated' }),
    await parseOfsiXlsx(readFileSync(dataPath('uk-ofsi/ConList.xlsx')), { listName: 'uk-ofsi-consolidated' }),
    parseEveryPolitician([read('pep-nigeria/senate-term-8.csv'), read('pep-nigeria/representatives-term-8.csv')], {
      listName: 'pep-nigeria-nass',
    }),
    parseWikidataPep(
      {
        holders: read('pep-nigeria-wikidata/holders21.csv'),
        legislators: read('pep-nigeria-wikidata/legislators.csv'),
        family: read('pep-nigeria-wikidata/family.csv'),
      },
      { listName: 'pep-nigeria-wikidata' },
    ),
  ])();
  return loading;
}
