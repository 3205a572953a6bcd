import { expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';

it('reads SNAPSHOT_EVERY as a whole number of events and refuses anything else by name', () => {
  expect(loadConfig({}).snapshotEvery).toBeUndefined();
  expect(loadConfig({ SNAPSHOT_EVERY: '0' }).snapshotEvery).toBe(0);
  expect(loadConfig({ SNAPSHOT_EVERY: '100000' }).snapshotEvery).toBe(100_000);
  for (const bad of ['-1', '2.5', 'often']) expect(() => loadConfig({ SNAPSHOT_EVERY: bad })).toThrow(/SNAPSHOT_EVERY/);
});
