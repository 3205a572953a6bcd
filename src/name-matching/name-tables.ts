/**
 * Word tables for name normalisation. Person titles extend opensanctions/rigour's `stopwords.json`
 * (MIT) with West African and Arabic honorifics, which no published table covers. Legal forms come from
 * rigour's `org_types.json` plus Nigerian business suffixes. All entries are folded with `foldText`.
 */
import { readFileSync } from 'node:fs';
import { dataPath } from './data-path.js';
import { foldText } from './fold.js';

/** "President" in the languages sanctioned heads of state are written about in; Hungarian puts it last ("Putyin elnök"). */
const PRESIDENT = ['president', 'presidente', 'presiden', 'prasident', 'predsjednik', 'presedintele', 'prezident', 'prezydent', 'elnok'];

/** Titles and honorifics removed from the start of a name. */
const TITLES = [
  ...PRESIDENT,
  // West African
  'alhaji',
  'alhaja',
  'alhajji',
  'alh',
  'alhaj',
  'hajiya',
  'hajia',
  'hajja',
  'haji',
  'hajji',
  'hadj',
  'hadji',
  'chief',
  'otunba',
  'oba',
  'mallam',
  'malam',
  'engr',
  'barr',
  'arc',
  'pharm',
  'olori',
  'oloye',
  'iyalode',
  'igwe',
  'sen',
  'senator',
  'hon',
  'honourable',
  'honorable',
  'rev',
  'revd',
  'reverend',
  'pastor',
  'prophet',
  'apostle',
  'bishop',
  'evangelist',
  // Arabic and South Asian
  'sheikh',
  'sheik',
  'shaikh',
  'shaykh',
  'sheikha',
  'shaikha',
  'imam',
  'mullah',
  'mulla',
  'mawlawi',
  'maulvi',
  'mawlavi',
  'maulana',
  'emir',
  // Generic
  'mr',
  'mrs',
  'ms',
  'mx',
  'miss',
  'dr',
  'prof',
  'sir',
  'dame',
  'hrh',
  'gen',
  'col',
  'maj',
  'capt',
  'lt',
  'brig',
  'sgt',
  'cdr',
  'adm',
  'esq',
  'jr',
  'sr',
];

/** The subset removed wherever it stands: none of these is also a common given or family name. */
const HONORIFICS = [
  ...PRESIDENT,
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'hrh',
  'engr',
  'alhaji',
  'alhaja',
  'alhajji',
  'alh',
  'hajiya',
  'hajia',
  'otunba',
  'chief',
  'sheikh',
  'sheik',
  'shaikh',
  'shaykh',
  'scheikh',
  'scheik',
  'scheich',
  'sheih',
];

/** Legal forms too ambiguous to strip (they are also name words or particles). */
const KEEP_FORMS = new Set([
  'in',
  'as',
  'ad',
  'na',
  'yu',
  'lt',
  'll',
  'lc',
  'od',
  'se',
  'sp',
  'sha',
  'kor',
  'ops',
  'ngo',
  'npo',
  'ek',
  'ev',
  'eg',
  'dd',
  'kd',
  'zs',
]);

const EXTRA_FORMS = [
  'nig',
  'nigeria ltd',
  'enterprise',
  'enterprises',
  'ventures',
  'company',
  'co',
  'corp',
  'corporation',
  'pvt',
  'private',
  'limited',
  'ltd',
  'plc',
  'inc',
  'llc',
  'bn',
  'rc',
];

/** Forms that open a name (Russian/Indonesian/Ukrainian order: "OOO Romashka", "PT Maju"). */
const LEADING_FORMS = ['ooo', 'oao', 'zao', 'pao', 'ao', 'pjsc', 'ojsc', 'cjsc', 'jsc', 'pt', 'tov', 'chp', 'ip'];

function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(dataPath(`reference/${file}`), 'utf8')) as T;
}

function phraseSet(words: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const w of words) {
    const folded = foldText(w);
    if (folded && /^[a-z0-9 ]+$/.test(folded) && !KEEP_FORMS.has(folded)) out.add(folded);
  }
  return out;
}

export interface NameTables {
  /** Title phrases (folded, space-joined) removed from the start of a name. */
  leadingTitles: Set<string>;
  /** Single-word honorifics removed anywhere. */
  honorifics: Set<string>;
  /** Legal-form phrases removed from the end of a name. */
  trailingForms: Set<string>;
  leadingForms: Set<string>;
  /** Longest phrase, in tokens, of any table. */
  maxPhrase: number;
}

function build(): NameTables {
  const stop = readJson<{ person_name_prefixes: string[] }>('stopwords.json');
  const orgTypes = readJson<{ aliases: string[] }[]>('org_types.json');
  const leadingTitles = phraseSet([...stop.person_name_prefixes, ...TITLES]);
  const trailingForms = phraseSet([...orgTypes.flatMap((g) => g.aliases), ...EXTRA_FORMS]);
  const leadingForms = phraseSet(LEADING_FORMS);
  const all = [...leadingTitles, ...trailingForms];
  return {
    leadingTitles,
    honorifics: phraseSet(HONORIFICS),
    trailingForms,
    leadingForms,
    maxPhrase: Math.max(...all.map((p) => p.split(' ').length)),
  };
}

let tables: NameTables | undefined;

export function nameTables(): NameTables {
  tables ??= build();
  return tables;
}
