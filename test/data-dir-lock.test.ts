import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { LOCK_FILE } from '../src/data-dir-lock.js';
import { openEngine, tempDir } from './helpers.js';

let dir: ReturnType<typeof tempDir>;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => dir.remove());

const lockOf = (pid: number, host = hostname()) => writeFileSync(join(dir.path, LOCK_FILE), JSON.stringify({ pid, host }));

it('refuses a DATA_DIR another live node holds, naming it', async () => {
  const other = spawn('sleep', ['60']);
  try {
    lockOf(other.pid!);
    await expect(openEngine(dir.path)).rejects.toThrow(`DATA_DIR ${dir.path} is held by another node (pid ${other.pid} on ${hostname()}`);
    lockOf(1234, 'another-host');
    await expect(openEngine(dir.path)).rejects.toThrow('on another-host');
  } finally {
    other.kill();
  }
});

it('takes over the lock of a node that is gone, holds it while open, and leaves none at close', async () => {
  const gone = spawnSync('true').pid;
  lockOf(gone);
  const engine = await openEngine(dir.path);
  try {
    expect(JSON.parse(readFileSync(join(dir.path, LOCK_FILE), 'utf8'))).toEqual({ pid: process.pid, host: hostname() });
  } finally {
    await engine.close();
  }
  expect(existsSync(join(dir.path, LOCK_FILE))).toBe(false);
}, 180_000);
