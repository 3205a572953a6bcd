import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number, options: ScryptOptions) => Promise<Buffer>;

/** OWASP's scrypt floor (N=2^17, r=8, p=1): about 128 MiB and a tenth of a second per hash. */
export const SCRYPT_N_FLOOR = 2 ** 17;
/** 1 GiB a hash; beyond it one sign-in could take a small server's memory. */
export const SCRYPT_N_MAX = 2 ** 20;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
// scrypt needs 128·N·r bytes; twice that leaves room for its other buffers, and Node's default 32 MiB for small N.
const maxmem = (n: number, r: number) => Math.max(32 * 1024 * 1024, 256 * n * r);

export const MIN_PASSWORD_LENGTH = 12;

/**
 * Why `n` cannot be the scrypt cost of new hashes, or undefined when it can: a power of two up to 2^20, and below
 * OWASP's floor only when weak hashes are allowed (test runs: ALLOW_WEAK_PASSWORD_HASH).
 */
export function scryptCostProblem(n: number, allowWeak: boolean): string | undefined {
  if (!(Number.isSafeInteger(n) && n >= 2 && n <= SCRYPT_N_MAX && (n & (n - 1)) === 0))
    return `must be a power of two from 2 to ${SCRYPT_N_MAX} (2^20)`;
  if (n < SCRYPT_N_FLOOR && !allowWeak)
    return `must be at least ${SCRYPT_N_FLOOR} (2^17, OWASP's floor) unless ALLOW_WEAK_PASSWORD_HASH=true (tests only)`;
  return undefined;
}

/**
 * `scrypt$N$r$p$salt$hash` (base64url): each hash keeps its parameters, so a stronger or (in tests) weaker cost for
 * new hashes leaves the stored ones verifiable.
 */
export async function hashPassword(password: string, n = SCRYPT_N_FLOOR): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(password, salt, KEY_LENGTH, { N: n, r: R, p: P, maxmem: maxmem(n, R) });
  return ['scrypt', n, R, P, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

export async function passwordMatches(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scryptAsync(password, Buffer.from(salt, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: maxmem(Number(n), Number(r)),
  });
  return timingSafeEqual(actual, expected);
}

/** A one-time password of 20 characters from an alphabet without look-alikes (0/O, 1/l/I). */
export function oneTimePassword(): string {
  const alphabet = 'abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  const bytes = randomBytes(20);
  return Array.from(bytes, (b) => alphabet[b % alphabet.length]).join('');
}

/** Why a new password is refused, or undefined when it is acceptable. */
export function passwordProblem(password: string, email: string): string | undefined {
  if (password.length < MIN_PASSWORD_LENGTH) return `password must be at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > 256) return 'password must be at most 256 characters';
  if (password.toLowerCase().includes(email.toLowerCase().split('@')[0]!)) return 'password must not contain the email name';
  return undefined;
}
