/**
 * POST /api/v1/transaction-monitoring/instant on 1, 2 and 3 engine nodes (server processes) over one PostgreSQL
 * database, load spread over the nodes as a load balancer would, at a fixed offered rate (open loop, bench/open-loop.ts:
 * latency from each request's due time), after decisions/s at saturation (autocannon, closed loop). One node is the
 * baseline, measured in the same run. For each size it prints what was served and its p50/p99, each node's CPU per decision, the PostgreSQL backends' CPU per decision, and the
 * tail lag: from a commit on one node until another node's in-memory state has it (every sample each node saw).
 * Each size gets a database of its own, made and dropped here.
 * Usage: npm run bench:cluster [-- SECONDS] [RATE] [NODES…]   (PG_BENCH_URL: a server URL, default the local one)
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import autocannon from 'autocannon';
import pg from 'pg';
import { createApp } from '../src/http/app.js';
import { NO_RATE_LIMITS } from '../src/rate-limits.js';
import { SWITCH_POPULATION, transactionSource } from './fixtures/transactions.js';
import { openLoop } from './open-loop.js';
import { percentile } from './stats.js';
import { serverEngine } from './server-engine.js';

interface Ready {
  port: number;
  apiKey: string;
  apiSecret: string;
}

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
  const app = createApp(engine);
  const port = await new Promise<number>((resolve) =>
    serve(
      {
        fetch: (r, env) => {
          answered++;
          return app.fetch(r, env);
        },
        port: 0,
      },
      (info) => resolve(info.port),
    ),
  );
  process.on('message', () => {
    const { user, system } = process.cpuUsage();
    process.send!({ cpuMicros: user + system, answered, lags: lags.splice(0) } satisfies Usage);
  });
  process.send!({ port, ...key } satisfies Ready);
}

/** CPU seconds the server processes of `database` have used (Linux /proc; clock ticks of 10 ms). */
async function backendCpu(admin: pg.Client, database: string): Promise<number> {
  const { rows } = await admin.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1', [database]);
  let ticks = 0;
  for (const { pid } of rows) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // A backend that ended between the query and the read.
    }
  }
  return ticks / 100;
}

function bodies(): () => string {
  const source = transactionSource(SWITCH_POPULATION, Date.now() % 1e6);
  const templates = Array.from({ length: 65_536 }, () => {
    const tx = source();
    (tx.transactionData as { reference: string }).reference = '@REF@';
    return JSON.stringify(tx).split('"@REF@"') as [string, string];
  });
  const run = Date.now().toString(36);
  let n = 0;
  return () => {
    const [a, b] = templates[n % templates.length]!;
    return `${a}"C-${run}-${n++}"${b}`;
  };
}

const fmt = (ms: number) => ms.toFixed(1);

async function measure(admin: pg.Client, adminUrl: string, nodes: number, seconds: number, rate: number, body: () => string) {
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
    return new Promise<Ready>((resolve) => child.once('message', (m) => resolve(m as Ready)));
  };
  const usage = (child: ChildProcess) =>
    new Promise<Usage>((resolve) => {
      child.once('message', (m) => resolve(m as Usage));
      child.send('usage');
    });
  try {
    // The first node makes the schema and the key; the others start together on it.
    const first = await start(1);
    const ports = [first.port, ...(await Promise.all(Array.from({ length: nodes - 1 }, (_, i) => start(i + 2)))).map((r) => r.port)];
    const load = {
      port: ports[0]!,
      ports,
      path: '/api/v1/transaction-monitoring/instant',
      headers: { 'content-type': 'application/json', apiKey: first.apiKey, apiSecret: first.apiSecret },
      body,
      connections: 50,
    };
    // Warm-up below any capacity this machine shows, so that no backlog of it is left to the measured runs.
    await openLoop({ ...load, rate: Math.min(rate / 2, 100), seconds: 4 });
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
                requests: [{ method: 'POST', path: load.path, headers: load.headers, setupRequest: (req) => ({ ...req, body: body() }) }],
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
    const r = await openLoop({ ...load, rate, seconds });
    const after = await Promise.all(children.map(usage));
    const pgCpu = (await backendCpu(admin, database)) - pgBefore;
    const answered = after.reduce((n, u, i) => n + u.answered - before[i]!.answered, 0);
    const perNode = after.map((u, i) => ((u.cpuMicros - before[i]!.cpuMicros) / Math.max(1, u.answered - before[i]!.answered)).toFixed(0));
    const lags = after.flatMap((u) => u.lags.map((s) => s * 1000)).sort((a, b) => a - b);
    console.log(
      `${nodes} node${nodes > 1 ? 's' : ' '} ${rate}/s offered: ${r.served.toFixed(0).padStart(5)}/s served  p50 ${fmt(r.p50)} p99 ${fmt(r.p99)} p99.9 ${fmt(r.p999)} max ${r.max.toFixed(0)} ms  errors ${r.errors} non-2xx ${r.non2xx} unanswered ${r.unanswered}  (load average ${load1.toFixed(1)})`,
    );
    console.log(
      `  CPU per decision: engine node${nodes > 1 ? 's' : ''} ${perNode.join(' / ')} µs, PostgreSQL backends ${((pgCpu * 1e6) / Math.max(1, answered)).toFixed(0)} µs`,
    );
    if (nodes > 1)
      console.log(
        lags.length > 0
          ? `  tail lag, commit on one node to another node's state: p50 ${fmt(percentile(lags, 50))} p99 ${fmt(percentile(lags, 99))} max ${fmt(lags.at(-1)!)} ms (${lags.length} commits heard)`
          : '  tail lag: no commit of another node was heard',
      );
    return { ...r, saturation: perSecond };
  } finally {
    await Promise.all(
      children.map((c) => new Promise((resolve) => (c.exitCode === null ? (c.once('exit', resolve), c.disconnect()) : resolve(null)))),
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
  console.log(
    `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  console.log(`POST /instant on PostgreSQL, ${seconds} s at ${rate}/s offered per size, spread over the nodes' ports\n`);
  const body = bodies();
  try {
    const results: { nodes: number; served: number; p99: number; saturation: number }[] = [];
    for (const nodes of sizes.length > 0 ? sizes : [1, 2, 3]) {
      const r = await measure(admin, adminUrl, nodes, seconds, rate, body);
      results.push({ nodes, served: r.served, p99: r.p99, saturation: r.saturation });
    }
    const base = results[0]!;
    console.log(`\nagainst ${base.nodes} node${base.nodes > 1 ? 's' : ''} (same run):`);
    for (const r of results.slice(1))
      console.log(
        `  ${r.nodes} nodes: served ×${(r.served / base.served).toFixed(2)}, p99 ×${(r.p99 / Math.max(0.01, base.p99)).toFixed(2)}`,
      );
    console.log(
      `load average at the end ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
  } finally {
    await admin.end();
  }
}

if (process.argv[2] === 'server') await server();
else await client();
