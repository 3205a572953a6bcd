/**
 * POST /api/v1/transaction-monitoring/instant on 1, 2 and 3 engine nodes (server processes) over one PostgreSQL
 * database, load spread over the nodes as a load balancer would. Pinned with taskset so the figures mean something
 * on 2 cores: the load generator and the bench database's PostgreSQL backends on core 0, every engine node on the
 * other core(s) (on 2 cores they share core 1, so N nodes cannot serve more than one core's worth: what the run
 * measures is the cost of a decision, not scaling). For each size: decisions/s at saturation (autocannon, closed
 * loop), then a fixed offered rate (open loop, bench/open-loop.ts: latency from each request's due time) with what
 * was served, p50/p99, each node's CPU per decision, the PostgreSQL backends' CPU per decision, and the tail lag (a
 * commit on one node to another node's state); at saturation also how long the appends held the log's lock per
 * decision (`s`, BEGIN's return to COMMIT's). Then an apply-only phase sends load to node 1 alone with every node's
 * deferred passes off: node 1's CPU is deciding, the others' is `a`, following a decision made elsewhere; then one
 * node runs the passes over those decisions alone: `d`, the deferred read models' CPU per decision, done once in the
 * cluster (bench/cluster-phases.ts). From `c` (1 node's CPU per decision at saturation, its passes in it), `a`, `s`
 * and the backends' CPU it prints the model of N nodes on N machines: N / (c + (N−1)·a) decisions/s of engine cores,
 * against PostgreSQL's one-core bound and the lock's 1/s.
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
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import autocannon from 'autocannon';
import pg from 'pg';
import { DEFAULT_PARTITIONS } from '../src/partitions/index.js';
import { ask, startNode, type Usage } from './cluster-node.js';
import { backendCpu, backendPids, pin } from './cluster-cpu.js';
import { bodies, templates, type Template } from './cluster-load.js';
import { median, printModel, type SizeResult } from './cluster-model.js';
import { type Parts, splitCosts, timeLocks } from './cluster-phases.js';
import { openLoop, type OpenLoopResult } from './open-loop.js';
import { percentile } from './stats.js';

/** With leases: the partitions of the bench's business this node holds the state of, once it has built them. */
interface Owned {
  owned: number[];
}

const LEASING = process.env.BENCH_LEASES === '1';
/** Each node on a core of its own, the load generator and PostgreSQL floating over all of them. */
const OWN_CORES = process.env.BENCH_CORES === 'own';
const PROFILE_DIR = process.env.BENCH_PROFILE;

/** The load generator's core; the engine nodes take the others in turn (or, OWN_CORES, every core in turn). */
const LOAD_CORE = '0';
const nodeCore = (i: number) => String(OWN_CORES ? (i - 1) % cpus().length : cpus().length > 1 ? 1 + ((i - 1) % (cpus().length - 1)) : 0);

const fmt = (ms: number) => ms.toFixed(1);

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
    const { child, ready } = startNode(url.toString(), `node${i}`, i === 1, LEASING);
    children.push(child);
    pin(child.pid!, nodeCore(i));
    return ready;
  };
  const usage = (child: ChildProcess) => ask<Usage>(child, 'usage');
  const owned = async (child: ChildProcess) => (await ask<Owned>(child, 'owned')).owned;
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
    /** A closed loop of `connections` to one node for `seconds`. */
    const saturate = (port: number, connections: number, body: () => string) =>
      new Promise<autocannon.Result>((resolve, reject) =>
        autocannon(
          {
            url: `http://127.0.0.1:${port}`,
            duration: seconds,
            connections,
            requests: [{ method: 'POST', path: load.path, headers: load.headers, setupRequest: (req) => ({ ...req, body: body() }) }],
          },
          (err, result) => (err ? reject(err) : resolve(result)),
        ),
      );
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
    const satFrom = await Promise.all(children.map(usage));
    const pgSatFrom = await backendCpu(admin, database);
    const locks = await timeLocks(children);
    const satStart = performance.now();
    const saturated = await Promise.all(ports.map((port, i) => saturate(port, Math.ceil(60 / nodes), bodyOf[i]!)));
    const satMs = performance.now() - satStart;
    const held = await locks.read();
    const satTo = await Promise.all(children.map(usage));
    const satAnswered = satTo.reduce((n, u, i) => n + u.answered - satFrom[i]!.answered, 0);
    const satPerNode = satTo.map((u, i) => (u.cpuMicros - satFrom[i]!.cpuMicros) / Math.max(1, u.answered - satFrom[i]!.answered));
    const pgSat = (((await backendCpu(admin, database)) - pgSatFrom) * 1e6) / Math.max(1, satAnswered);
    const perSecond = saturated.reduce((n, r) => n + r.requests.total / r.duration, 0);
    const lockUs = (held.heldMs * 1000) / Math.max(1, held.appends);
    const perCommit = (held.heldMs * 1000) / Math.max(1, held.commits);
    console.log(
      `${nodes} node${nodes > 1 ? 's' : ' '} at saturation (60 connections): ${perSecond.toFixed(0)}/s, p50 ${Math.max(...saturated.map((r) => r.latency.p50))} ms on the slowest node`,
    );
    console.log(
      `  CPU per decision: engine node${nodes > 1 ? 's' : ''} ${satPerNode.map((c) => c.toFixed(0)).join(' / ')} µs, PostgreSQL backends ${pgSat.toFixed(0)} µs`,
    );
    console.log(
      `  the log's lock, BEGIN's return to COMMIT's: ${lockUs.toFixed(0)} µs per decision (${held.appends} decisions in ${held.commits} commits, ${(held.appends / Math.max(1, held.commits)).toFixed(1)} a commit, ${perCommit.toFixed(0)} µs a commit), held ${((100 * held.heldMs) / satMs).toFixed(0)}% of the time`,
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
    const result: Omit<SizeResult, 'parts'> & { parts?: Parts } = {
      nodes,
      served: r.served,
      p50: r.p50,
      p99: r.p99,
      saturation: perSecond,
      engineCpu: median(perNode),
      pgCpu: pgPerDecision,
      satCpu: median(satPerNode),
      satPgCpu: pgSat,
      lockUs,
      ...(lags.length > 0 ? { lagP50: percentile(lags, 50), lagP99: percentile(lags, 99) } : {}),
    };
    // Decisions on node 1 alone, at half the rate offered (the same in every run, and within what node 1 serves), the deferred passes off and
    // then run by one node: deciding, following (`a`) and the passes (`d`) measured apart.
    const applyRate = Math.max(20, Math.round(rate / 2));
    const parts = await splitCosts(
      children,
      { ...load, port: ports[0]!, body: bodyOf[0]!, rate: applyRate, seconds },
      () => saturate(ports[0]!, 30, bodyOf[0]!),
      () => backendCpu(admin, database),
      PROFILE_DIR && nodes > 1 ? children[1] : undefined,
    );
    result.parts = parts;
    console.log(
      `  apply only (${applyRate}/s to node 1, ${parts.decided} decisions, passes off; idle CPU of ${parts.idle.map((c) => c.toFixed(1)).join(' / ')}% taken off): deciding ${parts.deciding.toFixed(0)} µs${nodes > 1 ? `, following (a) ${parts.following.map((c) => c.toFixed(0)).join(' / ')} µs` : ''}, PostgreSQL ${parts.pgDeciding.toFixed(0)} µs`,
    );
    const l = parts.locks;
    console.log(
      `  the log's lock below saturation: ${((l.heldMs * 1000) / Math.max(1, l.appends)).toFixed(0)} µs per decision, ${((l.heldMs * 1000) / Math.max(1, l.commits)).toFixed(0)} µs per commit of ${(l.appends / Math.max(1, l.commits)).toFixed(1)}`,
    );
    console.log(
      `  the deferred passes over them on node ${nodes > 1 ? 2 : 1} alone (d): ${parts.deferred.toFixed(0)} µs per decision, PostgreSQL ${parts.pgDeferred.toFixed(0)} µs`,
    );
    if (nodes > 1)
      console.log(
        `  node 1 alone at saturation (30 connections, ${parts.saturated.decided} decisions, ${((parts.saturated.decided * 1000) / parts.saturated.ms).toFixed(0)}/s): following (a) ${parts.saturated.following.map((c) => c.toFixed(0)).join(' / ')} µs`,
      );
    if (nodes > 1) result.applyCpu = median(parts.following);
    if (nodes > 1) result.applySat = median(parts.saturated.following);
    return result as SizeResult;
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
    printModel(results);
  } finally {
    await admin.end();
  }
}

await client();
