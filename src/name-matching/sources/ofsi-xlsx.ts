/**
 * UK HM Treasury OFSI Consolidated List of Financial Sanctions Targets, as OFSI exports it in XLSX ("2022
 * format"), read with exceljs. One sheet: row 1 "Last Updated | dd/mm/yyyy", row 2 the header, then one row per
 * name of a designation, grouped by Group ID. Every value is text; dates are dd/mm/yyyy with 00 for an unknown
 * day or month. "Other Information" carries the UK Sanctions List reference and "(Gender):Male".
 */
import ExcelJS from 'exceljs';
import { countryCode } from '../countries.js';
import { blankEntry, type EntityType, type ListEntry, type ScreeningList } from '../records.js';
import { listIdentity, pushUnique } from './common.js';

const GROUP_TYPES: Record<string, EntityType> = { individual: 'Person', entity: 'Organization', ship: 'Vessel' };

/** "14/04/2025" → "2025-04-14"; "00/05/1960" → "1960-05"; "00/00/1960" → "1960". */
export function ukDate(value: string): string | null {
  const m = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(value.trim());
  if (!m) return null;
  const [, day, month, year] = m;
  if (month === '00') return year!;
  return day === '00' ? `${year}-${month}` : `${year}-${month}-${day}`;
}

function cellText(value: ExcelJS.CellValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object' && 'richText' in value)
    return value.richText
      .map((r) => r.text)
      .join('')
      .trim();
  return String(value).trim();
}

type Row = Map<string, string>;

function nameOf(row: Row, person: boolean): string {
  const given = ['Name 1', 'Name 2', 'Name 3', 'Name 4', 'Name 5'].map((k) => row.get(k) ?? '').filter((s) => s);
  const last = row.get('Name 6') ?? '';
  if (!person) return [last, ...given].filter((s) => s).join(' ');
  return given.length && last ? `${last}, ${given.join(' ')}` : last || given.join(' ');
}

function toEntry(groupId: string, rows: Row[], listName: string, version: string): ListEntry | null {
  const type = GROUP_TYPES[(rows[0]!.get('Group Type') ?? '').toLowerCase()] ?? 'Unknown';
  const person = type === 'Person';
  const primary = rows.find((r) => r.get('Alias Type') === 'Primary name') ?? rows[0]!;
  const name = nameOf(primary, person);
  if (!name) return null;
  const aliases: string[] = [];
  const weakAliases: string[] = [];
  const birthDates: string[] = [];
  const countries: string[] = [];
  const addresses: string[] = [];
  const regimes: string[] = [];
  const positions: string[] = [];
  let gender: 'male' | 'female' | null = null;
  let reference = '';
  let info = '';
  for (const row of rows) {
    const alias = nameOf(row, person);
    if (alias && alias !== name) {
      pushUnique(aliases, alias);
      if (row.get('Alias Quality') === 'Low') pushUnique(weakAliases, alias);
    }
    pushUnique(aliases, row.get('Name Non-Latin Script'));
    const dob = ukDate(row.get('DOB') ?? '');
    if (dob) pushUnique(birthDates, dob);
    for (const nationality of (row.get('Nationality') ?? '').split(/[,;]|\(\d\)/)) pushUnique(countries, countryCode(nationality.trim()));
    const address = ['Address 1', 'Address 2', 'Address 3', 'Address 4', 'Address 5', 'Address 6', 'Post/Zip Code', 'Country']
      .map((k) => row.get(k) ?? '')
      .filter((s) => s)
      .join(', ');
    pushUnique(addresses, address);
    pushUnique(countries, countryCode(row.get('Country')));
    pushUnique(regimes, row.get('Regime'));
    pushUnique(positions, row.get('Position'));
    const other = row.get('Other Information') ?? '';
    reference ||= /\(UK Sanctions List Ref\):\s*([A-Z]+\d+)/.exec(other)?.[1] ?? '';
    gender ??= (/\(Gender\):\s*(Male|Female)/i.exec(other)?.[1]?.toLowerCase() as 'male' | 'female' | undefined) ?? null;
    info ||= other;
  }
  return blankEntry({
    _id: `${listName}:${groupId}`,
    externalId: reference || groupId,
    type: 'sanction',
    name,
    aliases: aliases.filter((a) => a !== name),
    weakAliases: weakAliases.filter((a) => !rows.some((r) => r.get('Alias Quality') !== 'Low' && nameOf(r, person) === a)),
    birth_date: birthDates.length ? birthDates.join(';') : null,
    countries,
    entityType: type,
    gender,
    dataset: [
      {
        name: 'UK HM Treasury OFSI Consolidated List of Financial Sanctions Targets',
        url: 'https://www.gov.uk/government/publications/financial-sanctions-consolidated-list-of-targets',
      },
    ],
    sanctions: regimes.map((r) => `UK ${r}${reference ? ` ${reference}` : ''}`),
    overview: [positions.join('; '), info].filter((s) => s).join('. '),
    firstSeen: ukDate(primary.get('Listed On') ?? ''),
    lastUpdated: ukDate(primary.get('Last Updated') ?? ''),
    addresses,
    listName,
    listVersion: version,
  });
}

export async function parseOfsiXlsx(bytes: Uint8Array, options: { listName: string }): Promise<ScreeningList> {
  const { contentHash, version } = listIdentity([bytes]);
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  const sheet = workbook.worksheets[0];
  if (!sheet) throw new Error('not an OFSI consolidated list: the workbook has no sheet');
  const values = (n: number) => ((sheet.getRow(n).values as ExcelJS.CellValue[]) ?? []).map(cellText);
  const published = values(1);
  const header = values(2);
  if (!header.includes('Group ID') || !header.includes('Name 6'))
    throw new Error('not an OFSI consolidated list: row 2 has no "Group ID" and "Name 6" columns');
  const groups = new Map<string, Row[]>();
  for (let n = 3; n <= sheet.rowCount; n++) {
    const cells = values(n);
    const row: Row = new Map();
    header.forEach((key, i) => {
      if (key && cells[i]) row.set(key, cells[i]!);
    });
    const id = row.get('Group ID');
    if (!id) continue;
    const group = groups.get(id);
    if (group) group.push(row);
    else groups.set(id, [row]);
  }
  const entries: ListEntry[] = [];
  for (const [id, rows] of groups) {
    const entry = toEntry(id, rows, options.listName, version);
    if (entry) entries.push(entry);
  }
  const publishedAt = published[1] === 'Last Updated' ? ukDate(published[2] ?? '') : null;
  return { name: options.listName, type: 'sanction', version, contentHash, publishedAt, entries };
}
