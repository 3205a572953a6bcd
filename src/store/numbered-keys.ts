// Event data stored with its keys numbered: each object, at every depth, as an array of its keys and values in turn,
// a key the table knows as its index there; an array as its items after a null (which no key is). The stored data is
// that array behind the table's id, the first 128 bits of SHA-256 of the table's JSON text: the chain hash covers the
// id, so an inclusion proof commits to the table the data is read with, and an outsider handed the table checks it
// against the id and decodes the data alone (examples/verify-proof.mjs). The tables are part of the code, each kept
// as it is once data refers to it: every reader of the log decodes an event by itself, with nothing to look up first.
import { createHash } from 'node:crypto';

export interface KeyTable {
  /** base64url of the first 16 bytes of SHA-256 of JSON.stringify(keys). */
  readonly id: string;
  readonly keys: readonly string[];
  readonly index: ReadonlyMap<string, number>;
}

const TABLES = new Map<string, KeyTable>();

export const keyTableId = (keys: readonly string[]): string =>
  createHash('sha256').update(JSON.stringify(keys)).digest().subarray(0, 16).toString('base64url');

/** A table of keys, known from then on to every decoder in this process by its id. */
export function keyTable(keys: readonly string[]): KeyTable {
  if (new Set(keys).size !== keys.length) throw new Error('a key table lists each key once');
  const table: KeyTable = { id: keyTableId(keys), keys, index: new Map(keys.map((key, i) => [key, i])) };
  TABLES.set(table.id, table);
  return table;
}

/** An object as stored: the table's id, then its keys and values in turn. */
export type Numbered = unknown[];

function encodeValue(table: KeyTable, value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const stored: unknown[] = [null];
    for (const item of value) stored.push(item === undefined ? null : encodeValue(table, item));
    return stored;
  }
  return encodeObject(table, value, []);
}

function encodeObject(table: KeyTable, object: object, into: unknown[]): unknown[] {
  for (const key in object) {
    const value = (object as Record<string, unknown>)[key];
    if (value === undefined) continue;
    into.push(table.index.get(key) ?? key, encodeValue(table, value));
  }
  return into;
}

/** `object` as stored with `table`; it decodes to what JSON.stringify would have written (undefined members left out). */
export const encodeNumbered = (table: KeyTable, object: object): Numbered => encodeObject(table, object, [table.id]);

/** The table `data` is stored numbered with, when it is: an array of odd length behind the id of a table known here. */
export const numberedWith = (data: unknown): KeyTable | undefined =>
  Array.isArray(data) && data.length % 2 === 1 && typeof data[0] === 'string' ? TABLES.get(data[0]) : undefined;

function decodeValue(keys: readonly string[], stored: unknown): unknown {
  if (!Array.isArray(stored)) return stored;
  if (stored[0] !== null) return decodeObject(keys, stored, 0);
  const items: unknown[] = [];
  for (let i = 1; i < stored.length; i++) items.push(decodeValue(keys, stored[i]));
  return items;
}

function decodeObject(keys: readonly string[], stored: readonly unknown[], from: number): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (let i = from; i < stored.length; i += 2) {
    const ref = stored[i] as number | string;
    const key = typeof ref === 'number' ? keys[ref] : ref;
    if (key === undefined) throw new Error(`stored data refers to key ${ref}, which its key table does not hold`);
    const value = decodeValue(keys, stored[i + 1]);
    // An own member named __proto__, as JSON.parse makes it, rather than a new prototype.
    if (key === '__proto__') Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
    else object[key] = value;
  }
  return object;
}

/** The table `stored` was written with; an error naming its id when this engine does not know it. */
export function tableOf(stored: Numbered): KeyTable {
  const table = TABLES.get(stored[0] as string);
  if (!table) throw new Error(`stored data refers to key table ${String(stored[0])}, which this engine does not know`);
  return table;
}

/** The object `stored` holds, its keys as text. */
export const decodeNumbered = (stored: Numbered): Record<string, unknown> => decodeObject(tableOf(stored).keys, stored, 1);
