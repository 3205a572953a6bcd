import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { afterEach, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { EventStore, migrateStore, openDatabase } from '../../src/store/index.js';
import { tempDir } from '../helpers.js';

const require = createRequire(import.meta.url);
const tsx = require.resolve('tsx/cli');
let dir: ReturnType<typeof tempDir>;
afterEach(() => dir.remove());

it('keeps every acknowledged append after SIGKILL', async () => {
  dir = tempDir();
  const path = `${dir.path}/crash.db`;
  const child = spawn(process.execPath, [tsx, 'test/fixtures/append-child.ts', path, '100000'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const acknowledged: number[] = [];
  await new Promise<void>((resolve, reject) => {
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) if (/^\d+$/.test(line)) acknowledged.push(Number(line));
      if (acknowledged.length >= 400) {
        child.kill('SIGKILL');
        resolve();
      }
    });
    child.on('exit', () => resolve());
    child.on('error', reject);
  });
  await new Promise((r) => child.once('exit', r).once('close', r));

  const { db } = openDatabase(path);
  await migrateStore(db);
  const store = new EventStore(db, systemClock);
  const positions = new Set((await store.readAll({ limit: 1_000_000 })).map((e) => e.position));
  for (const p of acknowledged) expect(positions.has(p)).toBe(true);
  expect((await store.verifyChain()).ok).toBe(true);
  await db.destroy();
});
