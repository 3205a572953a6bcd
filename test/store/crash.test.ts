import { spawn } from 'node:child_process';
import { afterEach, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { EventStore, migrateStore, openDatabase } from '../../src/store/index.js';
import { screeningCacheDir, tempDir } from '../helpers.js';

let dir: ReturnType<typeof tempDir>;
afterEach(() => dir.remove());

/** Runs node with `args`, and SIGKILLs it once it has printed 400 lines matching `acknowledgement`; returns them. */
async function killedAfter(args: string[], acknowledgement: RegExp): Promise<string[]> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const acknowledged: string[] = [];
  await new Promise<void>((resolve, reject) => {
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) if (acknowledgement.test(line)) acknowledged.push(line);
      if (acknowledged.length >= 400) {
        child.kill('SIGKILL');
        resolve();
      }
    });
    child.on('exit', () => resolve());
    child.on('error', reject);
  });
  // The child may have exited on its own already, and then 'exit' would never come again.
  if (child.exitCode === null && child.signalCode === null) await new Promise((r) => child.once('exit', r));
  // A child that died before acknowledging enough (say, its writer never started) would pass vacuously.
  expect(acknowledged.length).toBeGreaterThanOrEqual(400);
  return acknowledged;
}

it.each(['inline', 'thread'] as const)('keeps every acknowledged append after SIGKILL (%s writer)', async (mode) => {
  dir = tempDir();
  const path = `${dir.path}/crash.db`;
  // Node itself runs the child, with tsx as a loader: tsx's CLI would run the script in a grandchild of its own,
  // which a SIGKILL of the CLI leaves appending.
  const args = ['--import', 'tsx', 'test/fixtures/append-child.ts', path, '100000', ...(mode === 'thread' ? ['thread'] : [])];
  const acknowledged = (await killedAfter(args, /^\d+$/)).map(Number);

  const { db } = openDatabase(path);
  await migrateStore(db);
  const store = new EventStore(db, systemClock);
  // The process that appended is gone: the log no longer grows.
  const head = await store.head();
  await new Promise((r) => setTimeout(r, 300));
  expect(await store.head()).toBe(head);
  const positions = new Set((await store.readAll({ limit: 1_000_000 })).map((e) => e.position));
  for (const p of acknowledged) expect(positions.has(p)).toBe(true);
  expect((await store.verifyChain()).ok).toBe(true);
  await db.destroy();
});

it('keeps every acknowledged decision after SIGKILL (two deciding threads)', async () => {
  dir = tempDir();
  const acknowledged = await killedAfter(['--import', 'tsx', 'test/fixtures/decide-child.ts', dir.path, screeningCacheDir ?? ''], /^K-/);

  const { db } = openDatabase(`${dir.path}/compliance.db`);
  const store = new EventStore(db, systemClock);
  const stored = new Set((await db.selectFrom('tm_transaction_refs').select('reference').execute()).map((r) => r.reference as string));
  for (const reference of acknowledged) expect(stored.has(reference)).toBe(true);
  expect((await store.verifyChain()).ok).toBe(true);
  await db.destroy();
}, 120_000);
