/**
 * Engine start-up with and without the screening cache folder: each start is a fresh process (module loading
 * included), timed from the process's start until createEngine resolves, in wall-clock and CPU time. The
 * baseline, in the same run, parses the bundled lists and indexes them as every start did before the cache.
 * Run: npm run bench:screening-startup [-- runs]
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { median } from './stats.js';

interface Start {
  wallMs: number;
  cpuMs: number;
}

if (process.argv[2] === '--child') {
  const { createEngine } = await import('../src/engine.js');
  const { pino } = await import('pino');
  const cacheDir = process.argv[3] === 'none' ? undefined : process.argv[3];
  const engine = await createEngine({
    dataDir: ':memory:',
    screeningCacheDir: cacheDir,
    logger: pino({ level: 'silent' }),
    tailIntervalMs: 0,
    workerIntervalMs: 0,
    watchRules: false,
  });
  const cpu = process.cpuUsage();
  const start: Start = { wallMs: performance.now(), cpuMs: (cpu.user + cpu.system) / 1000 };
  await engine.close();
  console.log(JSON.stringify(start));
} else {
  const runs = Number(process.argv[2] ?? 3);
  const tsx = createRequire(import.meta.url).resolve('tsx/cli');
  const run = promisify(execFile);
  const startOnce = async (cacheDir: string): Promise<Start> => {
    const { stdout } = await run(process.execPath, [tsx, 'bench/screening-startup.ts', '--child', cacheDir]);
    return JSON.parse(stdout.trim().split('\n').pop()!) as Start;
  };
  const cache = mkdtempSync(join(tmpdir(), 'ce-bench-screening-cache-'));
  try {
    console.log(
      `load average at start: ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    const first = await startOnce(cache);
    console.log(`first start, filling the cache: ${first.wallMs.toFixed(0)} ms wall, ${first.cpuMs.toFixed(0)} ms CPU`);
    const without: Start[] = [];
    const withCache: Start[] = [];
    // Interleaved, so that a change in the machine's load falls on both.
    for (let i = 0; i < runs; i++) {
      without.push(await startOnce('none'));
      withCache.push(await startOnce(cache));
    }
    const line = (label: string, starts: Start[]) =>
      console.log(
        `${label.padEnd(34)} median of ${starts.length}: ${median(starts.map((s) => s.wallMs)).toFixed(0)} ms wall, ${median(starts.map((s) => s.cpuMs)).toFixed(0)} ms CPU  (wall ${starts.map((s) => s.wallMs.toFixed(0)).join(', ')})`,
      );
    line('baseline: parse and index', without);
    line('cache: read lists and index', withCache);
    console.log(
      `speed-up: ${(median(without.map((s) => s.wallMs)) / median(withCache.map((s) => s.wallMs))).toFixed(1)}x wall, ${(median(without.map((s) => s.cpuMs)) / median(withCache.map((s) => s.cpuMs))).toFixed(1)}x CPU`,
    );
    console.log(
      `load average at end: ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
}
