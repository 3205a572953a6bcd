/**
 * The CPU an engine's start and close cost a process that has its modules loaded already, as each test file's
 * engines after the first do: the median of ROUNDS starts (after one that loads the modules) on a fresh SQLite
 * data directory, with the writer thread. process.cpuUsage() sums every thread, so the writer thread's start is in it.
 * Usage: npm run bench:engine-start [-- ROUNDS]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createEngine } from '../src/engine.js';

const rounds = Number(process.argv[2] ?? 5);
const logger = pino({ level: 'silent' });
const screeningCacheDir = mkdtempSync(join(tmpdir(), 'ce-start-cache-'));

async function startAndClose(): Promise<number> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ce-start-'));
  const before = process.cpuUsage();
  const engine = await createEngine({ dataDir, screeningCacheDir, logger, tailIntervalMs: 0, workerIntervalMs: 0, watchRules: false });
  await engine.close();
  const used = process.cpuUsage(before);
  rmSync(dataDir, { recursive: true, force: true });
  return (used.user + used.system) / 1000;
}

await startAndClose();
const times: number[] = [];
for (let i = 0; i < rounds; i++) times.push(await startAndClose());
rmSync(screeningCacheDir, { recursive: true, force: true });
times.sort((a, b) => a - b);
console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}; engine start and close: median ${times[Math.floor(rounds / 2)]!.toFixed(0)} ms CPU over ${rounds} ` +
    `(${times.map((t) => t.toFixed(0)).join(', ')})`,
);
