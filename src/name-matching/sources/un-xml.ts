/**
 * UN Security Council Consolidated List XML (CONSOLIDATED_LIST/INDIVIDUALS|ENTITIES).
 * Aliases of quality "Low" are kept as `weakAliases` too: the UN marks them as weak (mostly noms de guerre such
 * as "Abu Bakr"), so they match at a lower score. An ALIAS_NAME may pack several names with ';'
 * ("Mortaza Safari; Morteza Saferi"): each is an alias of its own.
 */
import { XMLParser } from 'fast-xml-parser';
import { blankEntry, type ListEntry, type ScreeningList } from '../records.js';
import { countryCode } from '../countries.js';
import { yearRange } from './dates.js';
import { listIdentity, pushUnique } from './common.js';

type Node = Record<string, unknown>;

const ARRAYS = new Set([
  'INDIVIDUAL',
  'ENTITY',
  'VALUE',
  'INDIVIDUAL_ALIAS',
  'ENTITY_ALIAS',
  'INDIVIDUAL_ADDRESS',
  'ENTITY_ADDRESS',
  'INDIVIDUAL_DATE_OF_BIRTH',
  'INDIVIDUAL_DOCUMENT',
]);

function text(v: unknown): string {
  return typeof v === 'string' || typeof v === 'number' ? String(v).trim() : '';
}

function nodes(v: unknown): Node[] {
  return Array.isArray(v) ? (v.filter((x) => x && typeof x === 'object') as Node[]) : [];
}

function values(v: unknown): string[] {
  return v && typeof v === 'object'
    ? nodes([v])
        .flatMap((n) => (Array.isArray(n.VALUE) ? n.VALUE.map(text) : []))
        .filter((s) => s)
    : [];
}

function birthDates(n: Node): string[] {
  const out: string[] = [];
  for (const dob of nodes(n.INDIVIDUAL_DATE_OF_BIRTH)) {
    if (text(dob.DATE)) pushUnique(out, text(dob.DATE));
    else if (text(dob.YEAR)) pushUnique(out, text(dob.YEAR));
    else if (text(dob.FROM_YEAR) && text(dob.TO_YEAR)) pushUnique(out, yearRange(Number(dob.FROM_YEAR), Number(dob.TO_YEAR)));
  }
  return out;
}

function toEntry(n: Node, kind: 'INDIVIDUAL' | 'ENTITY', listName: string, version: string): ListEntry | null {
  const id = text(n.DATAID);
  const name = ['FIRST_NAME', 'SECOND_NAME', 'THIRD_NAME', 'FOURTH_NAME']
    .map((k) => text(n[k]))
    .filter((s) => s)
    .join(' ');
  if (!id || !name) return null;
  const aliases: string[] = [];
  const weakAliases: string[] = [];
  // A name the UN gives both as a good and a low-quality alias is a good one.
  const strong = new Set<string>();
  for (const alias of nodes(n[`${kind}_ALIAS`])) {
    for (const one of text(alias.ALIAS_NAME).split(';')) {
      const value = one.trim();
      pushUnique(aliases, value);
      if (text(alias.QUALITY) === 'Low') pushUnique(weakAliases, value);
      else strong.add(value);
    }
  }
  pushUnique(aliases, text(n.NAME_ORIGINAL_SCRIPT));
  const countries: string[] = [];
  for (const nat of values(n.NATIONALITY)) pushUnique(countries, countryCode(nat));
  const addresses: string[] = [];
  for (const addr of nodes(n[`${kind}_ADDRESS`])) {
    const parts = ['STREET', 'CITY', 'STATE_PROVINCE', 'COUNTRY', 'NOTE'].map((k) => text(addr[k])).filter((s) => s);
    pushUnique(addresses, parts.join(', '));
    pushUnique(countries, countryCode(text(addr.COUNTRY)));
  }
  const dobs = kind === 'INDIVIDUAL' ? birthDates(n) : [];
  const gender = text(n.GENDER).toLowerCase();
  const updated = values(n.LAST_DAY_UPDATED);
  const designations = [...values(n.TITLE), ...values(n.DESIGNATION)];
  return blankEntry({
    _id: `${listName}:${id}`,
    externalId: text(n.REFERENCE_NUMBER) || id,
    type: 'sanction',
    name,
    aliases: aliases.filter((a) => a !== name),
    weakAliases: weakAliases.filter((a) => a !== name && !strong.has(a)),
    birth_date: dobs.length ? dobs.join(';') : null,
    countries,
    entityType: kind === 'INDIVIDUAL' ? 'Person' : 'Organization',
    gender: gender === 'male' || gender === 'female' ? gender : null,
    dataset: [
      { name: 'UN Security Council Consolidated List', url: 'https://main.un.org/securitycouncil/en/content/un-sc-consolidated-list' },
    ],
    sanctions: [`UN ${text(n.UN_LIST_TYPE)} ${text(n.REFERENCE_NUMBER)}`.trim()],
    overview: [designations.join(', '), text(n.COMMENTS1)].filter((s) => s).join('. '),
    firstSeen: text(n.LISTED_ON) || null,
    lastUpdated: updated.at(-1) ?? null,
    addresses,
    listName,
    listVersion: version,
  });
}

export function parseUnXml(xml: string, options: { listName: string }): ScreeningList {
  const { contentHash, version } = listIdentity([xml]);
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@',
    parseTagValue: false,
    isArray: (tagName) => ARRAYS.has(tagName),
  });
  const root = (parser.parse(xml) as Node).CONSOLIDATED_LIST as Node | undefined;
  if (!root) throw new Error('not a UN consolidated list: CONSOLIDATED_LIST element missing');
  const entries: ListEntry[] = [];
  for (const [kind, groupName] of [
    ['INDIVIDUAL', 'INDIVIDUALS'],
    ['ENTITY', 'ENTITIES'],
  ] as const) {
    const group = (root[groupName] ?? {}) as Node;
    for (const n of nodes(group[kind])) {
      const entry = toEntry(n, kind, options.listName, version);
      if (entry) entries.push(entry);
    }
  }
  const generated = text(root['@dateGenerated']);
  return { name: options.listName, type: 'sanction', version, contentHash, publishedAt: generated || null, entries };
}
