import fc from 'fast-check';
import { pino } from 'pino';
import { expect, it } from 'vitest';
import { createEngine } from '../../src/engine.js';
import { hashPassword, passwordMatches, SCRYPT_N_FLOOR } from '../../src/users/passwords.js';
import { screeningCacheDir } from '../helpers.js';

it('hashes at production strength by default: scrypt N=2^17, r=8, p=1, kept in the stored string', async () => {
  const stored = await hashPassword('a production passphrase');
  expect(stored).toMatch(/^scrypt\$131072\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
  expect(SCRYPT_N_FLOOR).toBe(2 ** 17);
  await expect(passwordMatches('a production passphrase', stored)).resolves.toBe(true);
});

it('checks a password against the cost its hash was made with, whatever the cost of new hashes', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.string({ minLength: 1, maxLength: 40 }),
      fc.string({ minLength: 1, maxLength: 40 }),
      fc.integer({ min: 1, max: 12 }),
      async (password, other, log2) => {
        const stored = await hashPassword(password, 2 ** log2);
        expect(stored.split('$')[1]).toBe(String(2 ** log2));
        expect(await passwordMatches(password, stored)).toBe(true);
        expect(await passwordMatches(other, stored)).toBe(password === other);
      },
    ),
    { seed: 43, numRuns: 40 },
  );
});

it('refuses a weak cost unless allowed, before holding the data folder, and warns at start when allowed', async () => {
  await expect(createEngine({ dataDir: ':memory:', passwordScryptN: 1024 })).rejects.toThrow(/^passwordScryptN must be at least 131072/);
  await expect(createEngine({ dataDir: ':memory:', passwordScryptN: 3000, allowWeakPasswordHash: true })).rejects.toThrow(
    /^passwordScryptN must be a power of two/,
  );
  const lines: { msg: string; passwordScryptN?: number }[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const engine = await createEngine({
    dataDir: ':memory:',
    screeningCacheDir,
    logger,
    tailIntervalMs: 0,
    workerIntervalMs: 0,
    watchRules: false,
    passwordScryptN: 1024,
    allowWeakPasswordHash: true,
  });
  await engine.close();
  expect(lines).toContainEqual(
    expect.objectContaining({ passwordScryptN: 1024, msg: expect.stringMatching(/below OWASP's scrypt floor/) }),
  );
});
