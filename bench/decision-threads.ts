/**
 * DECISION_THREADS in-process: engine.decide at saturation with 1 and with 2 deciding threads, alternated in one run
 * (1, 2, 1, 2 by default), each in a process of its own and on a fresh data folder with the default ruleset over SWITCH_POPULATION: decisions/s,
 * latency, and the CPU each thread spent per decision (Linux /proc): the engine's thread (validation, routing, the
 * answers), each deciding thread, the writer thread, and the rest (V8's GC helpers, libuv).
 * Threads are told apart by when they were made (Node names every thread "node"): of those the engine's start leaves
 * running, the first is the writer and the last are the deciding threads.
 * Each thread keeps its own memo of screening scores (the matcher's 50,000 names), which a short warm-up leaves cold:
 * WARM_UP (default 3,000 decisions) long enough to warm it measures the steady state.
 * PROFILE=1 runs each under the CPU profiler and prints its CPU per decision by stage of the path (bench/cost-profile.ts).
 * Usage: npm run bench:threads [-- DECISIONS]   (THREADS=1,2,1,2 the runs in order; WARM_UP; CONCURRENCY, default 512; PROFILE)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { createEngine } from '../src/engine.js';
import { SWITCH_POPULATION, transactionSource } from './fixtures/transactions.js';
import { type CpuProfile, readProfiles, samplesByStage, splitCpu, STAGES, type Stage } from './cost-profile.js';
import { percentile } from './stats.js';
import { threadCpu, type ThreadTimes } from './thread-cpu.js';

const N = Number(process.argv[2] ?? 20_000);
const RUNS = (process.env.THREADS ?? '1,2,1,2').split(',').map(Number);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 512);
const WARM_UP = Number(process.env.WARM_UP ?? 3_000);
/** The screening lists parsed and indexed once, by the first run, for every run. */
const cacheDir = process.env.BENCH_CACHE ?? mkdtempSync(join(tmpdir(), 'ce-bench-cache-'));

/** The process's threads but the CPU profiler's (one per thread profiled, with PROFILE). */
const tids = () =>
  new Set(
    readdirSync('/proc/self/task')
      .map(Number)
      .filter((t) => !readFileSync(`/proc/self/task/${t}/comm`, 'utf8').startsWith('v8:ProfEvntProc')),
  );
const cpuOf = (before: ThreadTimes, after: ThreadTimes, tid: number) => {
  const a = after.get(tid);
  const b = before.get(tid) ?? { user: 0, system: 0 };
  return a ? a.user + a.system - b.user - b.system : 0;
};

async function run(threads: number, round: number) {
  const dataDir = mkdtempSync(join(tmpdir(), 'ce-bench-threads-'));
  // libuv starts its pool at the first call that needs it: before the engine, so that its threads are not taken for the engine's.
  await stat(tmpdir());
  const existing = tids();
  const rssBefore = process.memoryUsage().rss;
  const engine = await createEngine({
    dataDir,
    screeningCacheDir: cacheDir,
    logger: pino({ level: 'silent' }),
    workerIntervalMs: 0,
    watchRules: false,
    decisionThreads: threads,
  });
  // Still running after the start: the writer, then the deciding threads (snapshot and rebuild threads have ended).
  const made = [...tids()].filter((t) => !existing.has(t)).sort((a, b) => a - b);
  // What the start added: the previous runs' engines are closed, their memory not all given back.
  const rss = (process.memoryUsage().rss - rssBefore) / 1e6;
  const next = transactionSource(SWITCH_POPULATION, 7 + round);
  const saturate = async (count: number) => {
    const latencies: number[] = [];
    let i = 0;
    let errors = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (i++ < count) {
          const t0 = performance.now();
          await engine.decide(next()).catch(() => errors++);
          latencies.push(performance.now() - t0);
        }
      }),
    );
    return { latencies, errors };
  };
  await saturate(WARM_UP);
  const before = threadCpu()!;
  const started = performance.now();
  const from = Number(process.hrtime.bigint() / 1000n);
  const { latencies, errors } = await saturate(N);
  const to = Number(process.hrtime.bigint() / 1000n);
  const seconds = (performance.now() - started) / 1000;
  const after = threadCpu()!;
  await engine.close();
  rmSync(dataDir, { recursive: true, force: true });
  const per = (tid: number) => cpuOf(before, after, tid) / N;
  const main = per(process.pid);
  const writer = made[0] === undefined ? 0 : per(made[0]);
  // The deciding threads are the last the engine starts.
  const deciding = threads > 1 ? made.slice(-threads).map(per) : [];
  const all = [...after.keys()].reduce((sum, tid) => sum + per(tid), 0);
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    threads,
    rate: N / seconds,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    errors,
    main,
    deciding,
    writer,
    rest: all - main - writer - deciding.reduce((s, x) => s + x, 0),
    all,
    load: loadavg()[0]!,
    rss,
    /** The measured phase on the CPU profiles' clock. */
    window: [from, to] as [number, number],
  };
}

/** One run in a process of its own: a run after another would find the screening matcher's memo warm (sharedMatcher). */
function runInChild(threads: number, round: number): Promise<Awaited<ReturnType<typeof run>>> {
  const profiling = profiles ? ['--cpu-prof', `--cpu-prof-dir=${join(profiles, String(round))}`, '--cpu-prof-interval=1000'] : [];
  const child = spawn(process.execPath, [...process.execArgv, ...profiling, fileURLToPath(import.meta.url), String(N)], {
    env: { ...process.env, BENCH_RUN: `${threads},${round}`, BENCH_CACHE: cacheDir },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve, reject) =>
    child.once('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`run exited ${code}`)),
    ),
  );
}

/** PROFILE=1: each run under --cpu-prof, and its CPU per decision split into the stages of the instant path. */
const profiles = process.env.PROFILE === '1' && !process.env.BENCH_RUN ? mkdtempSync(join(tmpdir(), 'ce-bench-threads-prof-')) : undefined;

/** Each thread's CPU per decision split by stage (bench/cost-profile.ts): the engine's thread, the deciding threads, the writer. */
function printStages(r: Awaited<ReturnType<typeof run>>, round: number): void {
  const read = readProfiles(join(profiles!, String(round)));
  const split = (profile: CpuProfile | undefined, cpu: number) =>
    profile ? splitCpu(samplesByStage(profile, ...r.window), cpu) : new Map();
  // The deciding threads' CPU is split in the proportions of all their samples together.
  const deciding = new Map<Stage, number>();
  const decidingCpu = r.deciding.reduce((a, b) => a + b, 0);
  const counts = new Map<Stage, number>();
  for (const p of read.deciding) for (const [stage, n] of samplesByStage(p, ...r.window)) counts.set(stage, (counts.get(stage) ?? 0) + n);
  for (const [stage, us] of splitCpu(counts, decidingCpu)) deciding.set(stage, us);
  const columns = [split(read.main, r.main), deciding, split(read.writer, r.writer)];
  console.log(`  ${'stage'.padEnd(40)} engine deciding writer    all  µs per decision`);
  for (const stage of STAGES) {
    const cells = columns.map((c) => c.get(stage) ?? 0);
    const sum = cells.reduce((a, b) => a + b, 0);
    if (sum >= 0.5)
      console.log(`  ${stage.padEnd(40)} ${cells.map((c) => c.toFixed(0).padStart(6)).join(' ')} ${sum.toFixed(0).padStart(6)}`);
  }
}

if (process.env.BENCH_RUN) {
  const [threads, round] = process.env.BENCH_RUN.split(',').map(Number) as [number, number];
  console.log(JSON.stringify(await run(threads, round)));
  process.exit(0);
}
console.log(
  `engine.decide at saturation, ${N} decisions a run after ${WARM_UP} to warm up, ${CONCURRENCY} in flight; CPU in µs per decision`,
);
console.log(
  'threads  decisions/s   p50 ms   p99 ms  errors  engine thread  deciding threads  writer  rest  all   load  RSS the start added',
);
const results: Awaited<ReturnType<typeof run>>[] = [];
for (const [round, threads] of RUNS.entries()) {
  const r = await runInChild(threads, round);
  results.push(r);
  if (profiles) printStages(r, round);
  const deciding = r.deciding.length > 0 ? r.deciding.map((x) => x.toFixed(0)).join(' + ') : '-';
  console.log(
    `${String(r.threads).padStart(7)}  ${r.rate.toFixed(0).padStart(11)}  ${r.p50.toFixed(1).padStart(7)}  ${r.p99.toFixed(1).padStart(7)}  ${String(r.errors).padStart(6)}  ${r.main.toFixed(0).padStart(13)}  ${deciding.padStart(16)}  ${r.writer.toFixed(0).padStart(6)}  ${r.rest.toFixed(0).padStart(4)}  ${r.all.toFixed(0).padStart(4)}  ${r.load.toFixed(2).padStart(5)}  ${r.rss.toFixed(0)} MB`,
  );
}
const mean = (k: number) => {
  const rates = results.filter((r) => r.threads === k).map((r) => r.rate);
  return rates.reduce((s, x) => s + x, 0) / rates.length;
};
const kinds = [...new Set(RUNS)].sort((a, b) => a - b);
if (kinds.length > 1)
  console.log(
    `mean decisions/s: ${kinds.map((k) => `${k} thread${k > 1 ? 's' : ''} ${mean(k).toFixed(0)}`).join(', ')}; ratio ${(mean(kinds[kinds.length - 1]!) / mean(kinds[0]!)).toFixed(2)}`,
  );
rmSync(cacheDir, { recursive: true, force: true });
if (profiles) rmSync(profiles, { recursive: true, force: true });
