import { expect, it } from 'vitest';
import { availableParallelism } from 'node:os';
import { loadConfig } from '../src/config.js';

it('reads SNAPSHOT_EVERY as a whole number of events and refuses anything else by name', () => {
  expect(loadConfig({}).snapshotEvery).toBeUndefined();
  expect(loadConfig({ SNAPSHOT_EVERY: '0' }).snapshotEvery).toBe(0);
  expect(loadConfig({ SNAPSHOT_EVERY: '100000' }).snapshotEvery).toBe(100_000);
  for (const bad of ['-1', '2.5', 'often']) expect(() => loadConfig({ SNAPSHOT_EVERY: bad })).toThrow(/SNAPSHOT_EVERY/);
});

it('reads the backtest limits as positive whole numbers and refuses anything else by name', () => {
  expect(loadConfig({}).backtests).toEqual({ perBusiness: undefined, total: undefined });
  expect(loadConfig({ BACKTESTS_PER_BUSINESS: '2', BACKTESTS_TOTAL: '4' }).backtests).toEqual({ perBusiness: 2, total: 4 });
  for (const bad of ['0', '-1', '1.5', 'many']) {
    expect(() => loadConfig({ BACKTESTS_PER_BUSINESS: bad })).toThrow(/^BACKTESTS_PER_BUSINESS must be a whole number/);
    expect(() => loadConfig({ BACKTESTS_TOTAL: bad })).toThrow(/^BACKTESTS_TOTAL must be a whole number/);
  }
});

it('reads PASSWORD_SCRYPT_N as a power of two, below OWASP floor only with ALLOW_WEAK_PASSWORD_HASH=true', () => {
  expect(loadConfig({}).passwordScryptN).toBeUndefined();
  expect(loadConfig({}).allowWeakPasswordHash).toBe(false);
  expect(loadConfig({ PASSWORD_SCRYPT_N: String(2 ** 18) }).passwordScryptN).toBe(2 ** 18);
  expect(() => loadConfig({ PASSWORD_SCRYPT_N: '1024' })).toThrow(/^PASSWORD_SCRYPT_N must be at least 131072 .*ALLOW_WEAK_PASSWORD_HASH/);
  expect(() => loadConfig({ PASSWORD_SCRYPT_N: '1024', ALLOW_WEAK_PASSWORD_HASH: '1' })).toThrow(/^PASSWORD_SCRYPT_N/);
  expect(loadConfig({ PASSWORD_SCRYPT_N: '1024', ALLOW_WEAK_PASSWORD_HASH: 'true' })).toMatchObject({
    passwordScryptN: 1024,
    allowWeakPasswordHash: true,
  });
  for (const bad of ['1000', '0', '-2', String(2 ** 21), 'strong'])
    expect(() => loadConfig({ PASSWORD_SCRYPT_N: bad, ALLOW_WEAK_PASSWORD_HASH: 'true' })).toThrow(
      /^PASSWORD_SCRYPT_N must be a power of two/,
    );
});

it('reads DECISION_THREADS: one fewer than the cores (at least 1) by default on a SQLite file, 1 on PostgreSQL, and refuses the rest by name', () => {
  expect(loadConfig({}).decisionThreads).toBe(Math.max(1, Math.min(availableParallelism() - 1, 64)));
  expect(loadConfig({ DATABASE_URL: 'postgres://db/x' }).decisionThreads).toBe(1);
  expect(loadConfig({ DECISION_THREADS: '3' }).decisionThreads).toBe(3);
  expect(loadConfig({ DECISION_THREADS: '1', DATABASE_URL: 'postgres://db/x' }).decisionThreads).toBe(1);
  for (const bad of ['0', '65', '1.5', 'two'])
    expect(() => loadConfig({ DECISION_THREADS: bad })).toThrow(`DECISION_THREADS must be a whole number from 1 to 64, got ${bad}`);
  expect(() => loadConfig({ DECISION_THREADS: '2', DATABASE_URL: 'postgres://db/x' })).toThrow(
    /DECISION_THREADS must be 1 with DATABASE_URL/,
  );
});
