/**
 * /healthz while backtests run: p50, p99 and max of GET /healthz at a fixed rate (open loop, bench/open-loop.ts),
 * first with nothing else running (the baseline), then while one business backtests a candidate over a long log
 * over and over, then while it backtests a 234 KiB candidate ruleset. Target (issue #34): p99 under 50 ms while any
 * backtest runs. The server runs in a child process over a file log that holds BENCH_DECISIONS decisions of the
 * backtesting business and as many of another; the load and the backtests come from here.
 * Usage: npm run bench:backtest [-- SECONDS] (default 10 s a phase; BENCH_DECISIONS, default 40,000)
 */
import { fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { serve } from '@hono/node-server';
import { pino } from 'pino';
import { createEngine } from '../src/engine.js';
import { createApp } from '../src/http/app.js';
import { SWITCH_POPULATION, transactionSource } from './fixtures/transactions.js';
import { openLoop, type OpenLoopResult } from './open-loop.js';

interface Ready {
  port: number;
  apiKey: string;
  apiSecret: string;
  decisions: number;
}

const HEALTH_RATE = 100;

/** The server thread's longest stall in a phase, and where its time went. */
interface Stall {
  ms: number;
  /** From the thread's schedstat (Linux; NaN elsewhere): running, waiting for a core, and the rest (blocked). */
  running: number;
  waiting: number;
}

/**
 * Watches the server thread's event loop every 2 ms for its longest stall, split by the thread's own schedstat into
 * its own work, waiting for a core (the machine's load) and being blocked (disk reads, locks, page faults).
 */
function watchStalls(): () => Stall {
  const file = `/proc/thread-self/schedstat`;
  const sched = (): [number, number] => {
    try {
      const [running, waiting] = readFileSync(file, 'utf8').split(' ').map(Number);
      return [running! / 1e6, waiting! / 1e6];
    } catch {
      return [Number.NaN, Number.NaN];
    }
  };
  let worst: Stall = { ms: 0, running: 0, waiting: 0 };
  let at = performance.now();
  let [running, waiting] = sched();
  setInterval(() => {
    const now = performance.now();
    const [r, w] = sched();
    if (now - at > worst.ms) worst = { ms: now - at, running: r - running, waiting: w - waiting };
    [at, running, waiting] = [now, r, w];
  }, 2).unref();
  return () => {
    const phase = worst;
    worst = { ms: 0, running: 0, waiting: 0 };
    return phase;
  };
}

async function server(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-backtest-'));
  // Backtests follow each other without pause: on a quiet machine more than the default six a minute.
  const engine = await createEngine({
    dataDir: dir,
    logger: pino({ level: 'silent' }),
    watchRules: false,
    tailIntervalMs: 0,
    rateLimits: { backtests: null },
  });
  const perBusiness = Number(process.env.BENCH_DECISIONS ?? 40_000);
  const mine = await engine.auth.issue({ name: 'backtesting' });
  const other = await engine.auth.issue({ name: 'other' });
  for (const [businessId, seed] of [
    [mine.businessId, 1],
    [other.businessId, 2],
  ] as const) {
    const next = transactionSource(SWITCH_POPULATION, seed);
    for (let i = 0; i < perBusiness; i += 200)
      await Promise.all(Array.from({ length: Math.min(200, perBusiness - i) }, () => engine.monitoring.decide({ businessId }, next())));
  }
  const app = createApp(engine, { publicBaseUrl: 'http://localhost' });
  const http = serve({ fetch: app.fetch, port: 0 }, (info) => {
    process.send!({ port: info.port, apiKey: mine.apiKey, apiSecret: mine.apiSecret, decisions: perBusiness } satisfies Ready);
  });
  // The event loop's own delay, which the server measures and reports at each phase's end (it counts time the
  // thread waited for a core too), and its longest stall: /healthz from the parent also waits for the parent.
  let delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const longestStall = watchStalls();
  process.on('message', async (m) => {
    if (m === 'delay') {
      delay.disable();
      const stall = longestStall();
      process.send!({ p50: delay.percentile(50) / 1e6, p99: delay.percentile(99) / 1e6, max: delay.max / 1e6, stall });
      delay = monitorEventLoopDelay({ resolution: 1 });
      delay.enable();
      return;
    }
    http.close();
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
}

/** A candidate like the bundled rules: one velocity rule and a large-amount rule. */
const CANDIDATE = {
  'candidate.rules': `rule BIG "Large transfer"
  when transactionData.amount >= 1_000_000
  score 50
  reason C001 medium "1m or more"
end

rule BURST "Burst of transfers from one user"
  when count(by user over 10 minutes) >= 3
  score 40
  reason C002 medium "three or more in 10 minutes"
end
`,
  'decide.rules': 'decide\n  rejected at 80\n  review at 40\n  otherwise approved\nend\n',
};

/** 234 KiB of rules: many rules with long titles and set tests, as a generated ruleset may hold, 200 to a file. */
function largeCandidate(): Record<string, string> {
  const files: Record<string, string> = { 'decide.rules': 'decide\n  review at 90\n  otherwise approved\nend\n' };
  let bytes = 0;
  for (let i = 0; bytes < 234 * 1024; i++) {
    const channels = Array.from({ length: 6 }, (_, j) => `"channel ${i}-${j}"`).join(', ');
    const rule = `rule GEN_${i} "${'Generated rule for a corridor and channel; '.repeat(3)}${i}"\n  when transactionData.amount > ${1000 + i} and transactionData.channel in [${channels}]\n  score 1\n  reason G${i} low "generated ${i}"\nend\n\n`;
    const name = `generated-${Math.floor(i / 200)}.rules`;
    files[name] = (files[name] ?? '') + rule;
    bytes += rule.length;
  }
  return files;
}

function line(name: string, r: OpenLoopResult): string {
  return `${name.padEnd(46)} p50 ${r.p50.toFixed(2).padStart(7)} ms   p99 ${r.p99.toFixed(2).padStart(7)} ms   max ${r.max.toFixed(1).padStart(7)} ms   (served ${r.served.toFixed(0)}/s, ${r.errors + r.non2xx} failed)`;
}

async function main(): Promise<void> {
  const seconds = Number(process.argv[2] ?? 10);
  const child = fork(fileURLToPath(import.meta.url), ['--server'], { execArgv: ['--import', 'tsx'] });
  // A failed phase must not leave the server running (and loading the machine) after the bench.
  process.on('exit', () => child.kill());
  const ready = await new Promise<Ready>((resolve) => child.once('message', (m) => resolve(m as Ready)));
  const url = `http://127.0.0.1:${ready.port}`;
  const headers = { apiKey: ready.apiKey, apiSecret: ready.apiSecret, 'Content-Type': 'application/json' };
  const health = () =>
    openLoop({
      port: ready.port,
      method: 'GET',
      path: '/healthz',
      headers: {},
      body: () => '',
      rate: HEALTH_RATE,
      seconds,
      connections: 4,
    });

  /** Backtests `files` one after another until `until` resolves; their durations and replayed decisions. */
  async function backtestsDuring(files: Record<string, string>, until: Promise<unknown>) {
    let done = false;
    void until.then(() => (done = true));
    const runs: { ms: number; decisions: number; status: number }[] = [];
    while (!done) {
      const started = performance.now();
      const res = await fetch(`${url}/api/v1/transaction-monitoring/rules/backtest`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ files }),
      });
      const body = (await res.json()) as { data?: { decisions: number }; message: string };
      runs.push({ ms: performance.now() - started, decisions: body.data?.decisions ?? 0, status: res.status });
      if (res.status !== 200) throw new Error(`backtest answered ${res.status}: ${body.message}`);
    }
    return runs;
  }

  console.log(
    `log: ${ready.decisions.toLocaleString('en-US')} decisions of the backtesting business and as many of another; /healthz at ${HEALTH_RATE}/s, ${seconds} s a phase`,
  );
  const loopDelay = async () => {
    child.send('delay');
    const d = await new Promise<{ p50: number; p99: number; max: number; stall: Stall }>((resolve) =>
      child.once('message', (m) => resolve(m as never)),
    );
    const { ms, running, waiting } = d.stall;
    return (
      `${''.padEnd(46)} server event loop delay p50 ${d.p50.toFixed(2)} ms, p99 ${d.p99.toFixed(2)} ms, max ${d.max.toFixed(1)} ms\n` +
      `${''.padEnd(46)} longest stall ${ms.toFixed(0)} ms: running ${running.toFixed(0)}, waiting for a core ${waiting.toFixed(0)}, blocked ${(ms - running - waiting).toFixed(0)}`
    );
  };
  await loopDelay();
  const baseline = await health();
  console.log(line('GET /healthz, nothing else running', baseline));
  console.log(await loopDelay());
  for (const [name, files] of [
    ['… while backtests of a 2-rule candidate run', CANDIDATE],
    ['… while backtests of a 234 KiB candidate run', largeCandidate()],
  ] as const) {
    const measuring = health();
    const runs = await backtestsDuring(files, measuring);
    console.log(line(name, await measuring));
    console.log(await loopDelay());
    const ms = runs.map((r) => r.ms).sort((a, b) => a - b);
    console.log(
      `${''.padEnd(46)} ${runs.length} backtests, ${runs[0]!.decisions.toLocaleString('en-US')} decisions each, ${(ms[Math.floor(ms.length / 2)]! / 1000).toFixed(1)} s median`,
    );
  }
  child.send('stop');
}

if (process.argv.includes('--server')) await server();
else await main();
