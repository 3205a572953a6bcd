import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tx } from '../monitoring/fixtures.js';
import { testApi, type TestApi } from '../helpers.js';

// A real full disk: a 16 MiB tmpfs mounted for this test (root only), holding the engine's data directory.
const mountPoint = mkdtempSync(join(tmpdir(), 'ce-full-disk-'));
let mounted = false;
try {
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m,mode=0700', 'tmpfs', mountPoint], { stdio: 'ignore' });
  mounted = true;
} catch {
  console.log(`full-disk test skipped: cannot mount a tmpfs at ${mountPoint} (needs root and mount rights)`);
}

const logs: { level: number; msg: string }[] = [];
const logger = pino({ level: 'info' }, { write: (line: string) => logs.push(JSON.parse(line)) });
let api: TestApi;
const filler = join(mountPoint, 'filler');

beforeAll(async () => {
  if (mounted) api = await testApi({ dataDir: join(mountPoint, 'data'), logger, storageProbeMs: 100, workerIntervalMs: 0 });
});
afterAll(async () => {
  await api?.close();
  if (mounted) execFileSync('umount', [mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

/** Writes until the file system refuses: big chunks first, then pages. */
function fillDisk(): void {
  const fd = openSync(filler, 'w');
  try {
    for (const size of [1024 * 1024, 64 * 1024, 4096, 512]) {
      const chunk = Buffer.alloc(size, 1);
      for (;;) {
        try {
          writeSync(fd, chunk);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
          break;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
}

const decide = (reference: string) => api.call('POST', '/api/v1/transaction-monitoring/instant', { body: tx(reference) });
const storageLogs = (text: string) => logs.filter((l) => l.msg.includes(text));

it.skipIf(!mounted)(
  'answers 503 with Retry-After while the disk is full, turns /healthz unhealthy, logs the episode once, and recovers without a restart',
  async () => {
    expect((await decide('before-full')).status).toBe(200);
    const { url } = (await api.call('GET', '/api/v1/upload?fileType=txt&access=private')).body.data;
    expect((await api.call('GET', '/healthz')).status).toBe(200);

    // Empty the WAL, so that the next commit must grow it on a disk with no room left.
    await sql`pragma wal_checkpoint(TRUNCATE)`.execute(api.engine.db);
    fillDisk();

    const refused = await Promise.all(Array.from({ length: 20 }, (_, i) => decide(`while-full-${i}`)));
    for (const res of refused) {
      expect(res.status).toBe(503);
      expect(res.headers.get('Retry-After')).toBe('30');
      expect(res.body).toEqual({ error: 503, message: expect.stringContaining('storage is full') });
    }
    // The case-management host answers in its own shape.
    const opened = await api.call('POST', '/api/v1/case-management/case', {
      body: { title: 't', priority: 'low', module: 'transaction-monitoring', record: { id: 'r', type: 'transaction', name: 'n' } },
    });
    expect(opened).toMatchObject({ status: 503, body: { message: expect.stringContaining('storage is full') } });
    expect(opened.body).not.toHaveProperty('error');
    // An upload's bytes meet ENOSPC on the file system rather than in SQLite: the same answer.
    const put = await api.app.request(new URL(url).pathname + new URL(url).search, { method: 'PUT', body: 'x'.repeat(64 * 1024) });
    expect(put.status).toBe(503);
    expect(put.headers.get('Retry-After')).toBe('30');

    const health = await api.call('GET', '/healthz');
    expect(health.status).toBe(503);
    expect(health.body).toMatchObject({
      status: 'unhealthy',
      reason: expect.stringContaining('lack of storage space'),
      code: expect.any(String),
    });
    expect(storageLogs('storage full')).toHaveLength(1);
    expect(logs.filter((l) => l.msg === 'unhandled error')).toHaveLength(0);

    unlinkSync(filler);
    // Nothing is written meanwhile: the probe alone notices the room.
    for (let i = 0; i < 100 && (await api.call('GET', '/healthz')).status !== 200; i++) await new Promise((r) => setTimeout(r, 50));
    expect((await api.call('GET', '/healthz')).body).toMatchObject({ status: 'ok' });
    expect(storageLogs('storage writable again')).toHaveLength(1);
    expect((await decide('after-full')).status).toBe(200);
    expect((await decide('while-full-0')).status).toBe(200);
    expect(storageLogs('storage full')).toHaveLength(1);
  },
);
