/**
 * Short forms of given names and the full names they stand for. The English ones are opensanctions/rigour's
 * `person_nick` groups (MIT, bundled in data/reference/symbols.json); the Nigerian ones, which no published table
 * covers, are listed here: Yoruba names shortened by dropping their prefix (Oladapo → Dapo, Babatunde → Tunde) and
 * Igbo names shortened to their first part (Chukwuemeka → Emeka).
 */
import { readFileSync } from 'node:fs';
import { dataPath } from './data-path.js';
import { foldText } from './fold.js';

const NIGERIAN: [short: string, ...full: string[]][] = [
  ['dapo', 'oladapo', 'adedapo'],
  ['tunde', 'babatunde', 'olatunde'],
  ['bayo', 'adebayo', 'olabayo'],
  ['segun', 'olusegun'],
  ['wale', 'olawale', 'adewale'],
  ['femi', 'olufemi', 'oluwafemi'],
  ['kunle', 'olakunle', 'adekunle'],
  ['jide', 'olajide', 'babajide'],
  ['tayo', 'omotayo', 'adetayo'],
  ['deji', 'adedeji', 'oladeji'],
  ['gbenga', 'olugbenga'],
  ['lanre', 'olanrewaju'],
  ['seun', 'oluwaseun'],
  ['tobi', 'oluwatobi'],
  ['dayo', 'adedayo', 'oladayo'],
  ['sola', 'olusola'],
  ['tola', 'omotola'],
  ['bimbo', 'abimbola'],
  ['yemi', 'oluyemi', 'oluwayemisi'],
  ['funmi', 'olufunmilayo', 'funmilayo'],
  ['toyin', 'oluwatoyin'],
  ['bukola', 'olubukola'],
  ['kemi', 'oluwakemi', 'olukemi'],
  ['tosin', 'oluwatosin'],
  ['bisi', 'olubisi'],
  ['biodun', 'abiodun'],
  ['nike', 'adenike'],
  ['lola', 'omolola'],
  ['ronke', 'oluronke'],
  ['dele', 'oladele', 'adedele'],
  ['rotimi', 'oluwarotimi'],
  ['wunmi', 'oluwawunmi'],
  ['emeka', 'chukwuemeka'],
  ['chuka', 'chukwuka'],
  ['ebuka', 'chukwuebuka'],
  ['uche', 'uchenna'],
  ['ike', 'ikechukwu'],
  ['chidi', 'chidiebere'],
  ['nonso', 'chinonso'],
  ['amaka', 'chiamaka'],
  ['kachi', 'kachikwu'],
];

/**
 * Ukrainian and Belarusian forms of the Russian given names that sanctions lists spell the Russian way
 * ("Volodymyr" for Vladimir). Matched like short forms.
 */
const EAST_SLAVIC: [form: string, russian: string][] = [
  ['volodymyr', 'vladimir'],
  ['volodimir', 'vladimir'],
  ['uladzimir', 'vladimir'],
  ['volodymyrovych', 'vladimirovich'],
  ['volodimirovich', 'vladimirovich'],
  ['uladzimiravich', 'vladimirovich'],
  ['oleksandr', 'aleksandr'],
  ['aliaksandr', 'aleksandr'],
  ['oleksiy', 'aleksei'],
  ['mykola', 'nikolai'],
  ['mikalai', 'nikolai'],
  ['mykhailo', 'mikhail'],
  ['dmytro', 'dmitry'],
  ['serhiy', 'sergei'],
  ['siarhei', 'sergei'],
  ['andriy', 'andrei'],
  ['yuriy', 'yuri'],
  ['viktar', 'viktor'],
  ['ryhor', 'grigory'],
  ['hryhoriy', 'grigory'],
];

let table: Map<string, string[]> | undefined;

function add(map: Map<string, string[]>, short: string, full: string): void {
  if (short === full) return;
  const list = map.get(short) ?? [];
  if (!list.includes(full)) list.push(full);
  map.set(short, list);
}

/** Folded short form → folded full names. */
export function nicknames(): Map<string, string[]> {
  if (table) return table;
  const symbols = JSON.parse(readFileSync(dataPath('reference/symbols.json'), 'utf8')) as { person_nick: Record<string, string[]> };
  const map = new Map<string, string[]>();
  for (const group of Object.values(symbols.person_nick)) {
    // A group is one full name and its short forms; the full name is the longest.
    const names = group.map((name) => foldText(name));
    const full = names.reduce((a, b) => (b.length > a.length ? b : a));
    for (const n of names) add(map, n, full);
  }
  for (const [short, ...full] of NIGERIAN) for (const f of full) add(map, short, f);
  for (const [form, russian] of EAST_SLAVIC) add(map, form, russian);
  table = map;
  return map;
}
