/**
 * The lists bundled with the project (src/name-matching/data, see its README): OFAC SDN, OFAC consolidated
 * non-SDN, UN Security Council consolidated list, and Nigerian federal legislators as PEPs.
 */
import { readFileSync } from 'node:fs';
import type { ScreeningList } from './records.js';
import { dataPath } from './data-path.js';
import { parseOfacCsv } from './sources/ofac-csv.js';
import { parseUnXml } from './sources/un-xml.js';
import { parseEveryPolitician } from './sources/everypolitician.js';
import { createMatcher, type Matcher } from './matcher.js';

const read = (relative: string): string => readFileSync(dataPath(relative), 'utf8');

export const EMBEDDED_LIST_NAMES = ['ofac-sdn', 'ofac-consolidated', 'un-sc-consolidated', 'pep-nigeria-nass'] as const;

export function loadEmbeddedLists(): ScreeningList[] {
  return [
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
    parseEveryPolitician([read('pep-nigeria/senate-term-8.csv'), read('pep-nigeria/representatives-term-8.csv')], {
      listName: 'pep-nigeria-nass',
    }),
  ];
}

let shared: Matcher | undefined;

/** One matcher over the embedded lists, built on first use and kept for the process. */
export function embeddedMatcher(): Matcher {
  shared ??= createMatcher(loadEmbeddedLists());
  return shared;
}
