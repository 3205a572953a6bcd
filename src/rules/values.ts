// Run-time values of the language and the conversions from request JSON. Numbers become Decimal via their
// shortest JS string form, so the amount 1500.1 the client wrote stays exactly 1500.1 (never 1500.0999...).
import { Decimal } from 'decimal.js';
import type { FieldType } from './schema.js';

/** A private Decimal configuration: 40 significant digits, so sums of amounts are exact and division is precise. */
export const Dec = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_EVEN });
export type Dec = Decimal;

/** string | Decimal (numbers) | boolean | epoch ms (timestamps) | undefined (missing). */
export type Value = string | Decimal | boolean | number | undefined;

export const ZERO = new Dec(0);
export const ONE = new Dec(1);
export const HUNDRED = new Dec(100);

// Counts and hours are small integers; sharing their Decimals avoids an allocation per velocity read.
const SMALL_INTS = Array.from({ length: 1024 }, (_, i) => new Dec(i));

export function decimalOfInt(n: number): Decimal {
  return SMALL_INTS[n] ?? new Dec(n);
}

export function toDecimal(raw: unknown): Decimal | undefined {
  // decimal.js reads a number through its shortest string form (integers below 1e7 directly), which is what
  // the client wrote; -0 becomes 0 so it prints and compares like the text "0" would.
  if (typeof raw === 'number') return Number.isFinite(raw) ? (raw === 0 ? ZERO : new Dec(raw)) : undefined;
  if (typeof raw === 'string' && raw.trim() !== '' && !Number.isNaN(Number(raw))) return new Dec(raw.trim());
  if (Decimal.isDecimal(raw)) return raw as Decimal;
  return undefined;
}

export function toTimestamp(raw: unknown): number | undefined {
  if (typeof raw === 'number') return Number.isFinite(raw) ? raw : undefined;
  if (typeof raw !== 'string') return undefined;
  const ms = Date.parse(raw);
  return Number.isNaN(ms) ? undefined : ms;
}

export function toText(raw: unknown): string | undefined {
  return typeof raw === 'string' ? raw : typeof raw === 'number' ? String(raw) : undefined;
}

/** Whether a character code is one String.prototype.trim() removes. */
function isSpace(c: number): boolean {
  return (
    c <= 32 ||
    c === 160 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/**
 * Text as the rules read it: an empty or blank string is missing, since switches send `""` for a field that does
 * not apply (`vasReceiver: ""` on a plain transfer), and as a key it would make every such transaction one
 * party. Most texts start with a visible character, so only those that do not are trimmed.
 */
export function presentText(raw: unknown): string | undefined {
  const text = toText(raw);
  if (text === undefined || (text.length > 0 && !isSpace(text.charCodeAt(0)))) return text;
  return text.trim() === '' ? undefined : text;
}

/** Converts a raw JSON value to the declared type; anything else counts as missing. */
export function convert(raw: unknown, type: FieldType): Value {
  switch (type) {
    case 'decimal':
    case 'integer':
      return toDecimal(raw);
    case 'string':
      return toText(raw);
    case 'boolean':
      return typeof raw === 'boolean' ? raw : undefined;
    case 'timestamp':
      return toTimestamp(raw);
  }
}

/** Reads a dotted path (pre-split) from a plain object. */
export function readPath(input: unknown, segments: readonly string[]): unknown {
  let cur = input;
  for (const s of segments) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[s];
  }
  return cur;
}

export function isNumeric(t: FieldType | undefined): boolean {
  return t === 'decimal' || t === 'integer';
}

/** Equality across run-time values: Decimals by value, everything else by identity. */
export function valuesEqual(a: Value, b: Value): boolean {
  if (a instanceof Decimal && b instanceof Decimal) return a.eq(b);
  return a === b;
}

/**
 * a.cmp(b) without its allocation: decimal.js copies `b` on every comparison, and rules compare numbers many
 * times per decision. Same steps as decimal.js comparedTo for finite values; anything else goes through it.
 */
export function compareDecimals(a: Decimal, b: Decimal): number {
  const xd = a.d;
  const yd = b.d;
  if (!xd || !yd || b.e > Dec.maxE || b.e < Dec.minE) return a.cmp(b);
  const xs = a.s;
  if (!xd[0] || !yd[0]) return xd[0] ? xs : yd[0] ? -b.s : 0;
  if (xs !== b.s) return xs;
  const negative = xs < 0;
  if (a.e !== b.e) return a.e > b.e !== negative ? 1 : -1;
  const n = Math.min(xd.length, yd.length);
  for (let i = 0; i < n; i++) if (xd[i] !== yd[i]) return xd[i]! > yd[i]! !== negative ? 1 : -1;
  return xd.length === yd.length ? 0 : xd.length > yd.length !== negative ? 1 : -1;
}

/** Ordering of two present, comparable values (Decimals or timestamps). */
export function compareValues(a: Value, b: Value): number {
  if (a instanceof Decimal) return a.cmp(b as Decimal);
  return (a as number) - (b as number);
}

/** A JSON-friendly rendering of a value, for explanations. */
export function showValue(v: Value): string | boolean | null {
  if (v === undefined) return null;
  if (typeof v === 'number') return new Date(v).toISOString();
  if (typeof v === 'boolean' || typeof v === 'string') return v;
  return v.toString();
}

/** Set key of a value for `in [..]` and distinct counts: numbers by canonical decimal text. */
export function valueKey(v: string | Decimal | boolean | number): string | boolean | number {
  return v instanceof Decimal ? `#${v.toString()}` : v;
}
