// Amounts in velocity windows as scaled integers held in doubles: 1500.25 at scale 2 is 150025. Integers this
// small add and subtract exactly, so a window's running sum stays exact with no Decimal per entry. A feature
// whose amounts do not fit (more than MAX_SCALE decimals, or too large) keeps Decimals instead (Series).
import type { Decimal } from 'decimal.js';
import { Dec, decimalOfInt } from '../values.js';

export const MAX_SCALE = 9;

/**
 * Largest scaled entry. Math.round(x * 10^scale), x the nearest double to an amount of at most `scale`
 * decimals, is off by at most |N| * 2^-52 from the true integer N, under one half below 2^50.
 */
export const ENTRY_LIMIT = 2 ** 50;

/**
 * Largest running sum. A sum within it plus or minus an entry within ENTRY_LIMIT stays below 2^53, where every
 * integer is a double, so each step is exact; a window whose sum passes it makes its feature keep Decimals.
 */
export const SUM_LIMIT = 2 ** 52;

export const POW10: readonly number[] = Array.from({ length: MAX_SCALE + 1 }, (_, i) => 10 ** i);
const DIVISORS = POW10.map((p) => new Dec(p));

/** Decimal places written in a decimal's text, or -1 when it has an exponent. */
export function placesOfText(text: string): number {
  if (/[eE]/.test(text)) return -1;
  const point = text.indexOf('.');
  if (point < 0) return 0;
  let end = text.length;
  while (end > point + 1 && text.charCodeAt(end - 1) === 48) end--;
  return end - point - 1;
}

/** The amount the scaled integer `n` stands for. */
export function decimalOfScaled(n: number, scale: number): Decimal {
  if (scale === 0) return n >= 0 && n < 1024 ? decimalOfInt(n) : new Dec(n);
  return new Dec(n).div(DIVISORS[scale]!);
}

/** The shortest decimal text of the amount `n` stands for, without building a Decimal. */
export function textOfScaled(n: number, scale: number): string {
  const digits = String(Math.abs(n));
  if (scale === 0) return n < 0 ? `-${digits}` : digits;
  const padded = digits.padStart(scale + 1, '0');
  const whole = padded.slice(0, -scale);
  let fraction = padded.slice(-scale);
  let end = fraction.length;
  while (end > 0 && fraction.charCodeAt(end - 1) === 48) end--;
  fraction = fraction.slice(0, end);
  return (n < 0 ? '-' : '') + whole + (fraction === '' ? '' : `.${fraction}`);
}
