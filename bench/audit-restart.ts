/**
 * /healthz over the first seconds after a restart with a long log (issue #42): fills a log with EVENTS events
 * (default 1,000,000; reused when DIR or DATABASE_URL already holds them), starts the server (src/main.ts) on it in a
 * child process, waits for its first 200 from GET /healthz, then sends /healthz at 100/s (open loop: a stall shows in
 * every request due during it) for SECONDS (default 60). Prints the time to the first 200, then p50, p99 and max. Run
 * it twice on one log (TWICE=1): the first start records the tree's right edge, from which the second goes on (with
 * tree heads every 5 s, or AUDIT_CHECKPOINT_INTERVAL's).
 * DATABASE_URL (an empty PostgreSQL database) runs it on PostgreSQL instead of SQLite in DIR.
 * Usage: npm run bench:audit-restart [-- SECONDS] (EVENTS, DIR, DATABASE_URL, TWICE)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createEngine } from '../src/engine.js';
import { openLoop } from './open-loop.js';

const seconds = Number(process.argv[2] ?? 60);
const databaseUrl = process.env.DATABASE_URL || undefined;
const events = Number(process.env.EVENTS ?? 1_000_000);
const dir = process.env.DIR ?? mkdtempSync(join(tmpdir(), 'bench-audit-restart-'));

async function fill(): Promise<void> {
  const engine = await createEngine({ dataDir: dir, databaseUrl, logger: pino({ level: 'silent' }), watchRules: false, tailIntervalMs: 0 });
  const have = await engine.store.head();
  const started = performance.now();
  const batch = 2000;
  for (let at = have; at < events; at += batch) {
    const n = Math.min(batch, events - at);
    // Events of a stream no projection reads: what matters here is the log's length, not what the events say.
    await engine.store.appendMany(
      [{ streamId: `bench-filler-${at}`, events: Array.from({ length: n }, (_, i) => ({ type: 'BenchFiller', data: { i: at + i } })) }],
      { businessId: 'system', actor: 'bench' },
    );
  }
  if (events > have) console.log(`filled ${events - have} events in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  await engine.close();
}

async function restart(): Promise<void> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    // Heads recorded every few seconds unless told otherwise (AUDIT_CHECKPOINT_INTERVAL=0 runs a default install).
    env: { AUDIT_CHECKPOINT_INTERVAL: '5', ...process.env, DATA_DIR: dir, PORT: String(port), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const spawned = performance.now();
  try {
    for (;;) {
      const status = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.status,
        () => 0,
      );
      if (status === 200) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const ready = performance.now();
    const result = await openLoop({
      port,
      method: 'GET',
      path: '/healthz',
      headers: {},
      body: () => '',
      rate: 100,
      seconds,
      connections: 4,
    });
    console.log(
      `events ${events}: first 200 after ${((ready - spawned) / 1000).toFixed(1)} s; then /healthz at 100/s for ${seconds} s (open loop): ` +
        `p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms, max ${result.max.toFixed(1)} ms, ${result.errors + result.non2xx} errors or non-2xx`,
    );
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

await fill();
await restart();
if (process.env.TWICE) await restart();
