/**
 * What a bench:cost child runs: an engine from the sources under a root (this tree's, or the budget commit's for the
 * CI guard's A/B run, bench/guard-ab.ts), the saturating load, and the fork of a child under the CPU profiler. Only
 * types come from this tree's src/ here, so a child measuring another tree loads that tree's engine alone.
 */
import { fork } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { pino } from 'pino';
import type { Engine } from '../src/engine.js';
import type { RateLimits } from '../src/rate-limits.js';
import type { Mark } from './cost-mark.js';
import { threadCpu } from './thread-cpu.js';

export const SATURATION = 'in-process, saturation';

/** A window of a child's life, between the marks taken at its ends. */
export interface Phase {
  name: string;
  from: Mark;
  to: Mark;
}

/** This tree's root: the harness's own engine. */
export const THIS_TREE = fileURLToPath(new URL('..', import.meta.url));

/** The child's threads: its main thread, and those the engine started (the store's writer first among them). */
export interface ChildThreads {
  pid: number;
  engineThreads: number[];
}

export async function startEngine(root = THIS_TREE): Promise<{ engine: Engine; threads: ChildThreads; dir: string }> {
  const source = (path: string) => pathToFileURL(join(root, 'src', path)).href;
  const { createEngine }: typeof import('../src/engine.js') = await import(source('engine.ts'));
  const { ROUTE_CLASSES }: typeof import('../src/rate-limits.js') = await import(source('rate-limits.ts'));
  // Limits on, as in production, but far above what the bench sends: their cost is measured, not their refusals.
  const rateLimits: RateLimits = Object.fromEntries(ROUTE_CLASSES.map((c) => [c, { limit: 1e9, windowMs: 1000 }]));
  const before = new Set((threadCpu() ?? new Map()).keys());
  const dir = mkdtempSync(join(tmpdir(), 'bench-cost-'));
  // Background work at its defaults, as an embedding switch runs it; only the rules watcher is off.
  const engine = await createEngine({ dataDir: dir, logger: pino({ level: 'silent' }), watchRules: false, rateLimits });
  const engineThreads = [...(threadCpu() ?? new Map()).keys()].filter((t) => !before.has(t));
  return { engine, threads: { pid: process.pid, engineThreads }, dir };
}

/** `count` decisions, 128 in flight, then the deferred read models brought up to them (their CPU is the decisions'). */
export async function saturate(engine: Engine, count: number, next: () => Record<string, unknown>): Promise<void> {
  let sent = 0;
  await Promise.all(
    Array.from({ length: 128 }, async () => {
      while (sent++ < count) await engine.decide(next());
    }),
  );
  await engine.store.settleDeferred();
}

/** Forks `entry` under --cpu-prof; returns the child, the directory its profiles are written to, and its exit. */
export function profiledChild(entry: string, args: string[]) {
  const profiles = mkdtempSync(join(tmpdir(), 'bench-cost-prof-'));
  const process_ = fork(entry, args, {
    execArgv: [...process.execArgv, '--cpu-prof', `--cpu-prof-dir=${profiles}`, '--cpu-prof-interval=1000'],
  });
  const exited = new Promise<void>((resolve) => process_.once('exit', () => resolve()));
  return { process: process_, profiles, exited };
}
