/**
 * Where a state rebuild's time goes: the monitoring state replayed from a log of decisions (no snapshot), beside
 * its floors measured in the same run on the same log: SQLite reading the rows alone, JSON.parse of their data
 * alone, and applying already-decoded events alone. The log is filled once (engine.decide in simulated time,
 * FILL_PER_DAY a day, as bench:instant fills it) in DIR, and reused by later runs given the same DIR.
 * RELOAD=1 measures instead a rules reload that needs history rebuilt from that log (a rule reading lastSeen(ip),
 * as bench:instant's reload phase): an engine restored from a snapshot of the log (made once, in DIR-snapshot),
 * decisions offered at RATE a second (open loop, latency from each one's due time) until the reload is done.
 * Usage: npm run bench:rebuild [-- EVENTS [DIR]]   (ROUNDS=3: each phase's median of that many runs; RELOAD=1, RATE=2000)
 */
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { pino } from 'pino';
import type { Clock } from '../src/clock.js';
import { createEngine } from '../src/engine.js';
import { MONITORING_EVENT_TYPES, registerMonitoringUpcasters } from '../src/monitoring/events.js';
import { MonitoringState } from '../src/monitoring/state.js';
import { loadRuleset } from '../src/rules/index.js';
import { openLocation } from '../src/store/database.js';
import { EventStore, Upcasters, type StoredEvent } from '../src/store/index.js';
import { transactionSource } from './fixtures/transactions.js';
import { percentile } from './stats.js';

const N = Number(process.argv[2] ?? 200_000);
const DIR = process.argv[3] ?? join(tmpdir(), `ce-rebuild-${N}`);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const FILL_PER_DAY = Number(process.env.FILL_PER_DAY ?? 100_000);
const FILL_POPULATION = { users: 20_000, receivers: 10_000 };
const logger = pino({ level: 'silent' });

class BenchClock implements Clock {
  ahead = 0;
  now(): Date {
    return new Date(Date.now() + this.ahead);
  }
}
const clock = new BenchClock();

async function fill(): Promise<void> {
  mkdirSync(DIR, { recursive: true });
  const engine = await createEngine({ dataDir: DIR, logger, clock, tailIntervalMs: 0, workerIntervalMs: 0, watchRules: false });
  const next = transactionSource(FILL_POPULATION, 2, 'FILL');
  const step = 86_400_000 / FILL_PER_DAY;
  let left = N - (await engine.store.head());
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 256 }, async () => {
      while (left-- > 0) {
        clock.ahead += step;
        await engine.decide(next());
      }
    }),
  );
  console.log(`filled ${N} decisions in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  await engine.close();
  rmSync(join(DIR, 'snapshots'), { recursive: true, force: true });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Runs `run` ROUNDS times; prints the median wall time, events/s, and CPU µs per event (every thread of the process). */
async function phase(name: string, events: number, run: () => Promise<unknown> | unknown): Promise<void> {
  const ms: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const started = performance.now();
    const used = process.cpuUsage();
    await run();
    const { user, system } = process.cpuUsage(used);
    ms.push(performance.now() - started);
    cpu.push((user + system) / events);
  }
  const m = median(ms);
  console.log(
    `${name.padEnd(56)} ${(m / 1000).toFixed(2).padStart(6)} s  ${((events / m) * 1000).toFixed(0).padStart(7)} events/s  CPU ${median(cpu).toFixed(2).padStart(6)} µs/event  (${ms.map((t) => (t / 1000).toFixed(2)).join(', ')} s)`,
  );
}

/** Offers `work` at `rate` a second until `stop`; each latency counts from its due time (no coordinated omission). */
let errors = 0;
async function fixedRate(rate: number, work: () => Promise<unknown>, stop: () => boolean): Promise<number[]> {
  const latencies: number[] = [];
  const pending: Promise<void>[] = [];
  const started = performance.now();
  for (let i = 0; !stop(); i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    pending.push(
      work().then(
        () => void latencies.push(performance.now() - due),
        () => void errors++,
      ),
    );
  }
  await Promise.all(pending);
  return latencies;
}

async function reload(): Promise<void> {
  const RATE = Number(process.env.RATE ?? 2000);
  const template = `${DIR}-snapshot`;
  // The engine's clock a minute after the log's last event, which the fill wrote in simulated time.
  const log = new Database(join(DIR, 'compliance.db'), { readonly: true });
  clock.ahead = Date.parse(log.prepare('SELECT max(recorded_at) FROM events').pluck().get() as string) + 60_000 - Date.now();
  log.close();
  // The reload's log line says how long each of its stages held the deciding thread at a stretch.
  let reloadedLine = '';
  const reloadLogger = pino(
    { level: 'info' },
    { write: (line: string) => void (line.includes('"ruleset reloaded"') && (reloadedLine = line)) },
  );
  const at = (dir: string) =>
    createEngine({
      dataDir: dir,
      rulesDir: join(dir, 'rules'),
      logger: reloadLogger,
      clock,
      tailIntervalMs: 0,
      workerIntervalMs: 0,
      watchRules: false,
    });
  if (!existsSync(template)) {
    cpSync(DIR, template, { recursive: true });
    cpSync('rules', join(template, 'rules'), { recursive: true });
    // The close writes the snapshot every reload run starts from.
    await (await at(template)).close();
  }
  const dir = `${DIR}-reload`;
  rmSync(dir, { recursive: true, force: true });
  cpSync(template, dir, { recursive: true });
  const engine = await at(dir);
  writeFileSync(
    join(dir, 'rules', 'ip.rules'),
    'rule IP_BACK "The same IP within the hour"\n  when minutesSince(lastSeen(ip)) < 60\n  score 5\n  reason I001 low "IP seen within the hour"\nend\n',
  );
  const logged = await engine.store.head();
  const next = transactionSource(FILL_POPULATION, 3, `RELOAD-${Date.now()}`);
  const describe = (latencies: number[]) => {
    const sorted = latencies.sort((a, b) => a - b);
    const f = (p: number) => percentile(sorted, p).toFixed(1);
    return `${latencies.length} decisions at ${RATE}/s offered: p50 ${f(50)} ms, p99 ${f(99)} ms, max ${f(100)} ms, errors ${errors}`;
  };
  // The baseline: the same rate for 20 s before the reload (the first seconds after a start run slower).
  const until = performance.now() + 20_000;
  console.log(
    `load average ${loadavg()[0]!.toFixed(1)}; no reload, 20 s: ${describe(
      await fixedRate(
        RATE,
        () => engine.decide(next()),
        () => performance.now() > until,
      ),
    )}`,
  );
  errors = 0;
  let done = false;
  const started = performance.now();
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const reloading = engine.monitoring.reloadRules().finally(() => (done = true));
  const latencies = await fixedRate(
    RATE,
    () => engine.decide(next()),
    () => done,
  );
  if (!(await reloading)) throw new Error('the ruleset reading lastSeen(ip) was not loaded');
  const seconds = (performance.now() - started) / 1000;
  loop.disable();
  const { holds } = JSON.parse(reloadedLine) as { holds: unknown };
  console.log(
    `load average ${loadavg()[0]!.toFixed(1)}; rules reload reading lastSeen(ip) over ${logged} events: ${seconds.toFixed(1)} s; through it, ${describe(latencies)}`,
  );
  const ms = (ns: number) => (ns / 1e6).toFixed(1);
  console.log(`  event loop delay through it: p99 ${ms(loop.percentile(99))} ms, max ${ms(loop.max)} ms; stages: ${JSON.stringify(holds)}`);
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
}

if (!existsSync(join(DIR, 'compliance.db'))) await fill();
if (process.env.RELOAD === '1') {
  await reload();
  process.exit(0);
}
const dbPath = join(DIR, 'compliance.db');
const rules = await loadRuleset('rules');
// The log's clock ran ahead by the fill's simulated time: "now" is its last decision's.
const raw = new Database(dbPath, { readonly: true });
const types = MONITORING_EVENT_TYPES.map((t) => `'${t}'`).join(',');
const count = (raw.prepare(`SELECT count(*) FROM events WHERE type IN (${types})`).pluck().get() as number) ?? 0;
const last = raw.prepare(`SELECT recorded_at FROM events ORDER BY global_position DESC LIMIT 1`).pluck().get() as string;
const now = Date.parse(last) + 60_000;
console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}; ${count} monitoring events in ${dbPath}; ${ROUNDS} rounds a phase`,
);

await phase('SQLite read of every row, one scan in log order', count, () => {
  let n = 0;
  for (const _ of raw.prepare('SELECT * FROM events ORDER BY global_position').raw().iterate()) n++;
  return n;
});
let texts: string[] = raw.prepare(`SELECT data FROM events WHERE type IN (${types})`).pluck().all() as string[];
await phase('JSON.parse of their data alone', count, () => {
  for (const t of texts) JSON.parse(t);
});
texts = [];
const { db } = openLocation(dbPath, { readonly: true, max: 1 });
const store = new EventStore(db, { now: () => new Date(now) }, { upcasters: registerMonitoringUpcasters(new Upcasters()) });
let decoded: StoredEvent[] = [];
await phase('store.iterateAll of their types, pages of 5000, decoded', count, async () => {
  decoded = [];
  for await (const e of store.iterateAll({ types: MONITORING_EVENT_TYPES, pageSize: 5000 })) {
    void e.data;
    decoded.push(e);
  }
});
await phase('apply alone (events read and decoded before)', count, () => {
  const state = new MonitoringState(rules);
  state.apply(decoded);
});
decoded.length = 0;
await phase('MonitoringState.rebuild (read, decode, apply)', count, () => new MonitoringState(rules).rebuild(store, now));
await db.destroy();
raw.close();
