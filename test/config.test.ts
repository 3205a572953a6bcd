import { expect, it } from 'vitest';
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
