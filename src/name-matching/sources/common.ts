import { createHash } from 'node:crypto';
import { readCsv } from './csv-reader.js';
import { recordOf } from '../../own-keys.js';

/** Hash of the source text(s); `version` is its short form, so equal content means equal version. */
export function listIdentity(parts: readonly (string | Uint8Array)[]): { contentHash: string; version: string } {
  const hash = createHash('sha256');
  // A separator keeps ('ab','c') and ('a','bc') apart.
  for (const part of parts) hash.update(part).update('\u0000');
  const contentHash = hash.digest('hex');
  return { contentHash, version: contentHash.slice(0, 12) };
}

/** OFAC files end with a DOS end-of-file byte (0x1A) and use "-0-" for empty cells. */
export function parseCsvRows(text: string, options: { header: boolean }): string[][] {
  const rows = readCsv(text.replaceAll('\u001a', ''));
  return (options.header ? rows.slice(1) : rows).map((row) => row.map((cell) => (cell === '-0-' ? '' : cell)));
}

/** Rows keyed by the lower-cased header names, without a prototype: a header is any text. */
export function parseCsvObjects(text: string): Record<string, string>[] {
  const [header, ...rows] = readCsv(text.replaceAll('\u001a', ''));
  if (!header) return [];
  const keys = header.map((h) => h.trim().toLowerCase());
  return rows.map((row) => recordOf(keys.map((k, i) => [k, row[i] ?? ''])));
}

export function pushUnique(target: string[], value: string | null | undefined): void {
  const v = value?.trim();
  if (v && !target.includes(v)) target.push(v);
}

/** Groups rows by their first cell (OFAC alt/add/comments files key on ent_num). */
export function groupByFirstCell(rows: string[][]): Map<string, string[][]> {
  const out = new Map<string, string[][]>();
  for (const row of rows) {
    const key = row[0];
    if (!key) continue;
    const list = out.get(key);
    if (list) list.push(row);
    else out.set(key, [row]);
  }
  return out;
}

/** `--list pep` (or any name containing "pep") loads a PEP list; every other list holds sanctions. */
export function listTypeFor(listName: string): 'pep' | 'sanction' {
  return /\bpep\b/i.test(listName.replace(/[-_]/g, ' ')) ? 'pep' : 'sanction';
}

/** Splits a multi-valued cell ("a; b|c") into trimmed, non-empty values. */
export function splitMulti(value: string | undefined): string[] {
  return (value ?? '')
    .split(/[;|]/)
    .map((s) => s.trim())
    .filter((s) => s);
}

export function parseGender(value: string | undefined): 'male' | 'female' | null {
  const g = (value ?? '').trim().toLowerCase();
  if (g === 'male' || g === 'm') return 'male';
  if (g === 'female' || g === 'f') return 'female';
  return null;
}
