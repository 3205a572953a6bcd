import { chmodSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createEngine } from '../../src/engine.js';
import { screeningCacheDir, silentLogger, tempDir } from '../helpers.js';
import { tx } from '../monitoring/fixtures.js';

const modeOf = (path: string) => statSync(path).mode & 0o777;

/** Every file and folder under `root`, with its mode, so that a failure names the file. */
function modes(root: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    found.set(path.slice(root.length + 1), modeOf(path));
  }
  return found;
}

// Each test starts one or two engines from a fresh directory; the first builds the screening lists' cache in it.
let dir: ReturnType<typeof tempDir>;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => dir.remove());

it('creates DATA_DIR 0700 and writes the database, its WAL and shared memory, uploads, snapshots and keys 0600', async () => {
  const dataDir = join(dir.path, 'data');
  const engine = await createEngine({ dataDir, logger: silentLogger, tailIntervalMs: 0, workerIntervalMs: 0, snapshotEvery: 1 });
  try {
    await engine.decide(tx('r1'));
    const { url } = await engine.uploads.authorize({ businessId: 'biz' }, { fileType: 'txt', access: 'private' });
    const key = new URL(url).pathname.split('/').pop()!;
    await engine.uploads.receive(key, Object.fromEntries(new URL(url).searchParams), [new TextEncoder().encode('hello')]);
    expect(modeOf(dataDir)).toBe(0o700);
    const live = modes(dataDir);
    for (const name of ['compliance.db', 'compliance.db-wal', 'compliance.db-shm', 'upload-signing.key', `uploads/${key}`])
      expect([name, live.get(name)]).toEqual([name, 0o600]);
  } finally {
    await engine.close();
  }
  const all = modes(dataDir);
  expect(all.get('snapshots/monitoring.v8')).toBe(0o600);
  for (const [name, mode] of all) expect([name, mode & 0o077]).toEqual([name, 0]);
}, 180_000);

it('narrows an existing DATA_DIR and database that others could read', async () => {
  const dataDir = join(dir.path, 'wide');
  mkdirSync(dataDir, { mode: 0o755 });
  chmodSync(dataDir, 0o755);
  // The screening lists from the run's cache: this test is about the folder and the database, and the first test
  // covers the modes of a cache built inside DATA_DIR.
  const first = await createEngine({ dataDir, screeningCacheDir, logger: silentLogger, tailIntervalMs: 0, workerIntervalMs: 0 });
  await first.close();
  chmodSync(dataDir, 0o755);
  chmodSync(join(dataDir, 'compliance.db'), 0o644);
  const warnings: unknown[] = [];
  const logger = Object.assign(Object.create(silentLogger), { warn: (o: unknown) => warnings.push(o) });
  const again = await createEngine({ dataDir, screeningCacheDir, logger, tailIntervalMs: 0, workerIntervalMs: 0 });
  try {
    expect(modeOf(dataDir)).toBe(0o700);
    expect(modeOf(join(dataDir, 'compliance.db'))).toBe(0o600);
    expect(warnings).toContainEqual(expect.objectContaining({ dataDir, was: '755', now: '700' }));
  } finally {
    await again.close();
  }
}, 180_000);
