/**
 * POST /api/v1/transaction-monitoring/instant on 1, 2 and 3 engine nodes (server processes) over one PostgreSQL
 * database, load spread over the nodes as a load balancer would. Pinned with taskset so the figures mean something
 * on 2 cores: the load generator and the bench database's PostgreSQL backends on core 0, every engine node on the
 * other core(s) (on 2 cores they share core 1, so N nodes cannot serve more than one core's worth: what the run
 * measures is the cost of a decision, not scaling). For each size: decisions/s at saturation (autocannon, closed
 * loop), then a fixed offered rate (open loop, bench/open-loop.ts: latency from each request's due time) with what
 * was served, p50/p99, each node's CPU per decision, the PostgreSQL backends' CPU per decision, and the tail lag (a
 * commit on one node to another node's state). With 2 or more nodes, an apply-only phase sends load to node 1
 * alone: the other nodes' CPU over node 1's decisions is the cost `a` of applying a decision made elsewhere.
 * From `c` (1 node's CPU per decision), `a` and the backends' CPU it prints the model of N nodes on N machines:
 * N / (c + (N−1)·a) decisions/s of engine cores, against PostgreSQL's one-core bound.
 * Each size gets a database of its own, made and dropped here. The load is routed as a balancer routing by
 * `X-Routing-Key` to each partition's owner would: each node is sent only the subjects of its partitions (with
 * BENCH_LEASES=1 the partitions the nodes lease, as GET /partitions lists them; without, partition mod N), so no
 * decision is forwarded. BENCH_LEASES=1 starts each node with leases (NODE_URL): its state then holds only its own
 * partitions, and `a` is what skipping another node's decision costs.
 * BENCH_CORES=own pins each node to a core of its own instead (node i to core i − 1), the load generator and the
 * backends left to float over every core, shared with the nodes: `-- 10 1500 1 2` then compares, in one run, two
 * nodes on two cores with one node on one. BENCH_PROFILE=DIR writes a CPU profile of node 2 over the apply-only phase.
 * Usage: [BENCH_LEASES=1] [BENCH_CORES=own] npm run bench:cluster [-- SECONDS] [RATE] [NODES…]   (PG_BENCH_URL: a server URL, default the local one)
 */
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import autocannon from 'autocannon';
import pg from 'pg';
import { createApp } from '../src/http/app.js';
import { DEFAULT_PARTITIONS, decisionSubject, PartitionLeases, partitionOf, type SubjectFields } from '../src/partitions/index.js';
import { NO_RATE_LIMITS } from '../src/rate-limits.js';
import { SWITCH_POPULATION, transactionSource } from './fixtures/transactions.js';
import { openLoop, type OpenLoopResult } from './open-loop.js';
import { percentile } from './stats.js';
import { serverEngine } from './server-engine.js';

interface Ready {
  port: number;
  apiKey: string;
  apiSecret: string;
}

/** With leases: the partitions of the bench's business this node holds the state of, once it has built them. */
interface Owned {
  owned: number[];
}

const LEASING = process.env.BENCH_LEASES === '1';
/** Each node on a core of its own, the load generator and PostgreSQL floating over all of them. */
const OWN_CORES = process.env.BENCH_CORES === 'own';
const PROFILE_DIR = process.env.BENCH_PROFILE;

interface Usage {
  cpuMicros: number;
  answered: number;
  /** Seconds from another node's commit to this node's state, one per commit heard of since the last reading. */
  lags: number[];
}

async function server(): Promise<void> {
  const [, , , databaseUrl, nodeId, issue] = process.argv as string[];
  // Tailing on (LISTEN/NOTIFY, polling as the fallback): the nodes keep each other's decisions in their state.
  const engine = await serverEngine(`bench-${nodeId}-`, { rateLimits: NO_RATE_LIMITS, databaseUrl, nodeId, tailIntervalMs: 500 });
  const key = issue === 'issue' ? await engine.auth.issue({ name: 'bench' }) : { apiKey: '', apiSecret: '' };
  const lags: number[] = [];
  const observe = engine.metrics.tailLag.bind(engine.metrics);
  engine.metrics.tailLag = (seconds) => {
    lags.push(seconds);
    observe(seconds);
  };
  let answered = 0;
  let app: ReturnType<typeof createApp> | undefined;
  const port = await new Promise<number>((resolve) =>
    serve(
      {
        fetch: (r, env) => {
          answered++;
          return app!.fetch(r, env);
        },
        port: 0,
      },
      (info) => resolve(info.port),
    ),
  );
  // The lease times of the cluster tests: partitions settle within a second or two of the last node's start.
  const leases = LEASING
    ? await PartitionLeases.start(engine.db, engine.store, engine.logger, {
        nodeId: engine.nodeId,
        url: `http://127.0.0.1:${port}`,
        renewMs: 200,
        ttlMs: 1000,
      })
    : undefined;
  const follower = leases && engine.monitoring.followPartitions(leases);
  app = createApp(engine, { leases });
  const profiler = new Session();
  process.on('message', async (m) => {
    if (m === 'profile') {
      profiler.connect();
      await profiler.post('Profiler.enable');
      await profiler.post('Profiler.start');
      process.send!('profiling');
      return;
    }
    if (m === 'profiled') {
      const { profile } = await profiler.post('Profiler.stop');
      const file = join(PROFILE_DIR!, `apply-only-${nodeId}-${Date.now()}.cpuprofile`);
      writeFileSync(file, JSON.stringify(profile));
      process.send!(file);
      return;
    }
    if (m === 'owned') {
      const business = leases?.businesses()[Symbol.iterator]().next().value;
      const built = business === undefined ? undefined : follower!.built(business);
      const owned = built && leases!.mine(business!).size === built.size ? [...built] : [];
      process.send!({ owned } satisfies Owned);
      return;
    }
    const { user, system } = process.cpuUsage();
    process.send!({ cpuMicros: user + system, answered, lags: lags.splice(0) } satisfies Usage);
  });
  process.send!({ port, ...key } satisfies Ready);
}

/** Pins a process, all its threads, to `cores` (a taskset list); false when taskset is missing or refused. */
function pin(pid: number, cores: string): boolean {
  try {
    execFileSync('taskset', ['-a', '-cp', cores, String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The load generator's core; the engine nodes take the others in turn (or, OWN_CORES, every core in turn). */
const LOAD_CORE = '0';
const nodeCore = (i: number) => String(OWN_CORES ? (i - 1) % cpus().length : cpus().length > 1 ? 1 + ((i - 1) % (cpus().length - 1)) : 0);

const backendPids = async (admin: pg.Client, database: string) =>
  (await admin.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1', [database])).rows.map((r) => r.pid);

/** CPU seconds the server processes of `database` have used (Linux /proc; clock ticks of 10 ms). */
async function backendCpu(admin: pg.Client, database: string): Promise<number> {
  let ticks = 0;
  for (const pid of await backendPids(admin, database)) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // A backend that ended between the query and the read.
    }
  }
  return ticks / 100;
}

interface Template {
  parts: [string, string];
  partition: number;
}

function templates(): Template[] {
  const source = transactionSource(SWITCH_POPULATION, Date.now() % 1e6);
  return Array.from({ length: 65_536 }, () => {
    const tx = source();
    const partition = partitionOf(decisionSubject(tx as unknown as SubjectFields), DEFAULT_PARTITIONS);
    (tx.transactionData as { reference: string }).reference = '@REF@';
    return { parts: JSON.stringify(tx).split('"@REF@"') as [string, string], partition };
  });
}

/** Bodies of the templates whose partition is in `partitions` (all: every template), each with a fresh reference. */
function bodies(all: readonly Template[], partitions?: ReadonlySet<number>): () => string {
  const mine = partitions ? all.filter((t) => partitions.has(t.partition)) : all;
  const run = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
  let n = 0;
  return () => {
    const [a, b] = mine[n % mine.length]!.parts;
    return `${a}"C-${run}-${n++}"${b}`;
  };
}

const fmt = (ms: number) => ms.toFixed(1);
const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;

interface SizeResult {
  nodes: number;
  served: number;
  p50: number;
  p99: number;
  saturation: number;
  /** Engine CPU per decision, µs, the median over the nodes. */
  engineCpu: number;
  /** PostgreSQL backends' CPU per decision, µs. */
  pgCpu: number;
  /** Apply-only phase: the other nodes' CPU per decision node 1 made, µs (median). */
  applyCpu?: number;
  lagP50?: number;
  lagP99?: number;
}

async function measure(
  admin: pg.Client,
  adminUrl: string,
  nodes: number,
  seconds: number,
  rate: number,
  all: readonly Template[],
): Promise<SizeResult> {
  const database = `ce_bench_${randomBytes(4).toString('hex')}`;
  await admin.query(`create database ${database} template template0 encoding 'UTF8'`);
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  const children: ChildProcess[] = [];
  const start = (i: number) => {
    const child = fork(fileURLToPath(import.meta.url), ['server', url.toString(), `node${i}`, i === 1 ? 'issue' : ''], {
      execArgv: process.execArgv,
    });
    children.push(child);
    pin(child.pid!, nodeCore(i));
    return new Promise<Ready>((resolve) => child.once('message', (m) => resolve(m as Ready)));
  };
  const usage = (child: ChildProcess) =>
    new Promise<Usage>((resolve) => {
      child.once('message', (m) => resolve(m as Usage));
      child.send('usage');
    });
  const owned = (child: ChildProcess) =>
    new Promise<number[]>((resolve) => {
      child.once('message', (m) => resolve((m as Owned).owned));
      child.send('owned');
    });
  try {
    // The first node makes the schema and the key; the others start together on it.
    const first = await start(1);
    const ports = [first.port, ...(await Promise.all(Array.from({ length: nodes - 1 }, (_, i) => start(i + 2)))).map((r) => r.port)];
    // Each node's partitions: those it leases and has built, once they add up to all; else a fixed split.
    let shares: Set<number>[] = ports.map(
      (_, i) => new Set(Array.from({ length: DEFAULT_PARTITIONS }, (_, p) => p).filter((p) => p % nodes === i)),
    );
    for (let tries = 0; LEASING; tries++) {
      const held: number[][] = [];
      for (const child of children) held.push(await owned(child));
      if (held.every((h) => h.length > 0) && held.reduce((n, h) => n + h.length, 0) === DEFAULT_PARTITIONS) {
        shares = held.map((h) => new Set(h));
        break;
      }
      if (tries > 100) throw new Error(`partitions never settled: ${held.map((h) => h.length).join(' / ')}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const bodyOf = shares.map((share) => bodies(all, share));
    const load = {
      path: '/api/v1/transaction-monitoring/instant',
      headers: { 'content-type': 'application/json', apiKey: first.apiKey, apiSecret: first.apiSecret },
      connections: 50,
    };
    /** An open loop to each node at its share of `total`/s, its own subjects only; the slowest node's percentiles. */
    const spread = async (total: number, secs: number): Promise<OpenLoopResult> => {
      const runs = await Promise.all(
        ports.map((port, i) =>
          openLoop({
            ...load,
            port,
            body: bodyOf[i]!,
            connections: Math.ceil(load.connections / nodes),
            rate: (total * shares[i]!.size) / DEFAULT_PARTITIONS,
            seconds: secs,
          }),
        ),
      );
      const worst = (f: (r: OpenLoopResult) => number) => Math.max(...runs.map(f));
      const sum = (f: (r: OpenLoopResult) => number) => runs.reduce((n, r) => n + f(r), 0);
      return {
        served: sum((r) => r.served),
        p50: worst((r) => r.p50),
        p90: worst((r) => r.p90),
        p99: worst((r) => r.p99),
        p999: worst((r) => r.p999),
        max: worst((r) => r.max),
        errors: sum((r) => r.errors),
        non2xx: sum((r) => r.non2xx),
        unanswered: sum((r) => r.unanswered),
      };
    };
    // Warm-up below any capacity this machine shows, so that no backlog of it is left to the measured runs.
    await spread(Math.min(rate / 2, 100), 4);
    // The pool's connections are open by now: their backends go to the load generator's core.
    if (!OWN_CORES) for (const pid of await backendPids(admin, database)) pin(pid, LOAD_CORE);
    // Saturation: 60 closed-loop connections in all, as many to each node.
    const saturated = await Promise.all(
      ports.map(
        (port) =>
          new Promise<autocannon.Result>((resolve, reject) =>
            autocannon(
              {
                url: `http://127.0.0.1:${port}`,
                duration: seconds,
                connections: Math.ceil(60 / nodes),
                requests: [
                  {
                    method: 'POST',
                    path: load.path,
                    headers: load.headers,
                    setupRequest: (req) => ({ ...req, body: bodyOf[ports.indexOf(port)]!() }),
                  },
                ],
              },
              (err, result) => (err ? reject(err) : resolve(result)),
            ),
          ),
      ),
    );
    const perSecond = saturated.reduce((n, r) => n + r.requests.total / r.duration, 0);
    console.log(
      `${nodes} node${nodes > 1 ? 's' : ' '} at saturation (60 connections): ${perSecond.toFixed(0)}/s, p50 ${Math.max(...saturated.map((r) => r.latency.p50))} ms on the slowest node`,
    );
    const before = await Promise.all(children.map(usage));
    const pgBefore = await backendCpu(admin, database);
    const load1 = loadavg()[0]!;
    const r = await spread(rate, seconds);
    const after = await Promise.all(children.map(usage));
    const pgCpu = (await backendCpu(admin, database)) - pgBefore;
    const answered = after.reduce((n, u, i) => n + u.answered - before[i]!.answered, 0);
    const perNode = after.map((u, i) => (u.cpuMicros - before[i]!.cpuMicros) / Math.max(1, u.answered - before[i]!.answered));
    const lags = after.flatMap((u) => u.lags.map((s) => s * 1000)).sort((a, b) => a - b);
    const pgPerDecision = (pgCpu * 1e6) / Math.max(1, answered);
    console.log(
      `${nodes} node${nodes > 1 ? 's' : ' '} ${rate}/s offered: ${r.served.toFixed(0).padStart(5)}/s served  p50 ${fmt(r.p50)} p99 ${fmt(r.p99)} p99.9 ${fmt(r.p999)} max ${r.max.toFixed(0)} ms  errors ${r.errors} non-2xx ${r.non2xx} unanswered ${r.unanswered}  (load average ${load1.toFixed(1)})`,
    );
    console.log(
      `  CPU per decision: engine node${nodes > 1 ? 's' : ''} ${perNode.map((c) => c.toFixed(0)).join(' / ')} µs, PostgreSQL backends ${pgPerDecision.toFixed(0)} µs`,
    );
    if (nodes > 1)
      console.log(
        lags.length > 0
          ? `  tail lag, commit on one node to another node's state: p50 ${fmt(percentile(lags, 50))} p99 ${fmt(percentile(lags, 99))} max ${fmt(lags.at(-1)!)} ms (${lags.length} commits heard)`
          : '  tail lag: no commit of another node was heard',
      );
    const result: SizeResult = {
      nodes,
      served: r.served,
      p50: r.p50,
      p99: r.p99,
      saturation: perSecond,
      engineCpu: median(perNode),
      pgCpu: pgPerDecision,
      ...(lags.length > 0 ? { lagP50: percentile(lags, 50), lagP99: percentile(lags, 99) } : {}),
    };
    if (nodes > 1) {
      // Apply only: decisions made on node 1 alone, at half what this size served, so node 1 keeps up. First the
      // backlog of the overloaded run drains, and each node's idle CPU (timers, polls) is measured to be taken off.
      for (let last = -1, now = 0; last !== now; ) {
        last = now;
        await new Promise((r) => setTimeout(r, 1000));
        now = (await Promise.all(children.map(usage))).reduce((n, u) => n + u.answered, 0);
      }
      const idleFrom = await Promise.all(children.map(usage));
      const idleStart = performance.now();
      await new Promise((r) => setTimeout(r, 3000));
      const idleTo = await Promise.all(children.map(usage));
      const idlePerMs = idleTo.map((u, i) => (u.cpuMicros - idleFrom[i]!.cpuMicros) / (performance.now() - idleStart));
      const applyRate = Math.max(20, Math.round(Math.min(rate, r.served) / 2));
      const ask = (child: ChildProcess, m: string) =>
        new Promise<string>((resolve) => {
          child.once('message', (answer) => resolve(answer as string));
          child.send(m);
        });
      if (PROFILE_DIR) await ask(children[1]!, 'profile');
      const start = await Promise.all(children.map(usage));
      const applyStart = performance.now();
      await openLoop({ ...load, port: ports[0]!, body: bodyOf[0]!, rate: applyRate, seconds });
      const end = await Promise.all(children.map(usage));
      if (PROFILE_DIR) console.log(`  CPU profile of node 2 over the apply-only phase: ${await ask(children[1]!, 'profiled')}`);
      const elapsed = performance.now() - applyStart;
      const decided = end[0]!.answered - start[0]!.answered;
      const applying = end
        .slice(1)
        .map((u, i) => (u.cpuMicros - start[i + 1]!.cpuMicros - idlePerMs[i + 1]! * elapsed) / Math.max(1, decided));
      result.applyCpu = median(applying);
      console.log(
        `  apply only (${applyRate}/s to node 1, ${decided} decisions): the other nodes' CPU per decision applied ${applying.map((c) => c.toFixed(0)).join(' / ')} µs (idle CPU of ${idlePerMs
          .slice(1)
          .map((c) => (c / 10).toFixed(1))
          .join(' / ')}% taken off)`,
      );
    }
    return result;
  } finally {
    await Promise.all(
      children.map(
        (c) =>
          new Promise((resolve) => {
            if (c.exitCode !== null) return resolve(null);
            c.once('exit', resolve);
            c.disconnect();
          }),
      ),
    );
    await admin.query(`drop database if exists ${database} with (force)`);
  }
}

async function client(): Promise<void> {
  const seconds = Number(process.argv[2] ?? 10);
  const rate = Number(process.argv[3] ?? 2000);
  const sizes = process.argv.slice(4).map(Number);
  const adminUrl = process.env.PG_BENCH_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const pinned = OWN_CORES || pin(process.pid, LOAD_CORE);
  console.log(
    `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  console.log(`POST /instant on PostgreSQL, ${seconds} s at ${rate}/s offered per size, spread over the nodes' ports`);
  console.log(
    OWN_CORES
      ? 'pinned: node i on core i − 1; the load generator and PostgreSQL float over every core, shared with the nodes\n'
      : pinned
        ? `pinned: load generator and PostgreSQL backends on core ${LOAD_CORE}, nodes on core ${nodeCore(1)}${cpus().length > 2 ? ' onwards' : ''}\n`
        : 'not pinned (taskset failed): every process floats over every core\n',
  );
  console.log(LEASING ? 'nodes lease partitions and hold only theirs (BENCH_LEASES=1)\n' : 'no leases: every node holds every partition\n');
  const all = templates();
  try {
    const results: SizeResult[] = [];
    for (const nodes of sizes.length > 0 ? sizes : [1, 2, 3]) results.push(await measure(admin, adminUrl, nodes, seconds, rate, all));
    const base = results[0]!;
    console.log(
      `\nagainst ${base.nodes} node${base.nodes > 1 ? 's' : ''} (same run, ${OWN_CORES ? 'each node on a core of its own' : `the nodes sharing core ${nodeCore(1)}`}):`,
    );
    for (const r of results.slice(1))
      console.log(
        `  ${r.nodes} nodes: served ×${(r.served / base.served).toFixed(2)}, p99 ×${(r.p99 / Math.max(0.01, base.p99)).toFixed(2)}, saturation ×${(r.saturation / base.saturation).toFixed(2)}`,
      );
    const applied = results.flatMap((r) => (r.applyCpu === undefined ? [] : [r.applyCpu]));
    if (base.nodes === 1 && applied.length > 0) {
      const c = base.engineCpu;
      const a = median(applied);
      console.log(
        `\nmodel, N nodes on N machines of one such core each: c = ${c.toFixed(0)} µs to decide, a = ${a.toFixed(0)} µs to apply another node's decision, PostgreSQL ${base.pgCpu.toFixed(0)} µs of backend CPU per decision`,
      );
      for (const n of [1, 2, 3])
        console.log(`  ${n} node${n > 1 ? 's' : ' '}: N / (c + (N−1)·a) = ${((n * 1e6) / (c + (n - 1) * a)).toFixed(0)}/s of engine cores`);
      console.log(
        `  PostgreSQL on one core: at most ${(1e6 / base.pgCpu).toFixed(0)}/s (all backend CPU counted as serial: an upper bound on s)`,
      );
    }
  } finally {
    await admin.end();
  }
}

if (process.argv[2] === 'server') await server();
else await client();
