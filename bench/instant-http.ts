/**
 * POST /api/v1/transaction-monitoring/instant over HTTP, durable appends, default ruleset: latency at a fixed
 * offered rate and throughput at saturation, next to a bare Hono route that echoes the same JSON body, in the
 * same server process and the same run. The server runs in a child process; the load comes from here.
 * - Fixed rate: open loop (bench/open-loop.ts), latency from each request's due time (no coordinated omission),
 *   over a pool of keep-alive connections without pipelining, as a payment switch sends.
 * - Saturation: autocannon, closed loop, 100 connections.
 * - Both routes are warmed up first (JIT, and the instant path's in-memory state), and the bodies are built
 *   before the clock starts, so that the generator takes as little of the two cores from the server as it can.
 * - Server CPU per answered request is measured in the server (process.cpuUsage), which noisy neighbours on a
 *   shared machine distort much less than throughput. So do the decisions' share not approved and the server main
 *   thread's GC pauses, which the p99 at a fixed rate waits behind.
 * Usage: [DATABASE_URL=postgres://…] npm run bench:instant-http [-- SECONDS] [RATE]
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import autocannon from 'autocannon';
import { Hono } from 'hono';
import { serverEngine } from './server-engine.js';
import { createApp } from '../src/http/app.js';
import { NO_RATE_LIMITS } from '../src/rate-limits.js';
import { NewNameCounter, requestBodies } from './fixtures/transactions.js';
import { openLoop } from './open-loop.js';
import { BUDGET, printBudget } from './budget.js';
import { describeGc, GcPauses, type GcTotals } from './gc-pauses.js';
import { decisionTotals, flaggedShare, histogramTotals, meanMsBetween, type DecisionTotals } from './stats.js';
import { describeThreadCpu, threadCpu, type ThreadTimes } from './thread-cpu.js';

interface Ready {
  instant: number;
  echo: number;
  apiKey: string;
  apiSecret: string;
}

/** CPU time the server process has used (in all, and by thread), and how many requests it has answered. */
interface Usage {
  cpuMicros: number;
  answered: number;
  /** ThreadTimes as entries: the IPC channel carries JSON. */
  threads: [number, { user: number; system: number }][] | undefined;
  pid: number;
  /** Events appended and the group commits that wrote them. */
  events: number;
  commits: number;
  /** Totals of the engine's histograms: seconds appends waited for their commit, and seconds requests spent in the app. */
  appendWait: { sum: number; count: number };
  requestTime: { sum: number; count: number };
  /** The server main thread's GC pauses since the last reading. */
  gc: GcTotals;
  decided: DecisionTotals;
}

async function server(): Promise<void> {
  // The service's own capacity is measured, not one key's allowance (bench:fairness measures the limits).
  // DATABASE_URL=postgres://… runs the same bench with the log and read models in PostgreSQL (one node).
  const engine = await serverEngine('bench-http-', { rateLimits: NO_RATE_LIMITS, databaseUrl: process.env.DATABASE_URL || undefined });
  const key = await engine.auth.issue({ name: 'bench' });
  const echo = new Hono().post('/echo', async (c) => c.json({ message: 'ok', data: await c.req.json() }));
  let answered = 0;
  const gc = new GcPauses();
  const listen = (fetch: (r: Request, env: object) => Response | Promise<Response>) =>
    new Promise<number>((resolve) =>
      serve(
        {
          fetch: (r, env) => {
            answered++;
            return fetch(r, env);
          },
          port: 0,
        },
        (info) => resolve(info.port),
      ),
    );
  const ready: Ready = {
    instant: await listen(createApp(engine).fetch),
    echo: await listen(echo.fetch),
    apiKey: key.apiKey,
    apiSecret: key.apiSecret,
  };
  const counted = async (counter: typeof engine.metrics.eventCommits) => (await counter.get()).values[0]?.value ?? 0;
  process.on('message', async () => {
    const { user, system } = process.cpuUsage();
    const threads = threadCpu();
    const [events, commits] = [await counted(engine.metrics.eventsAppended), await counted(engine.metrics.eventCommits)];
    const [appendWait, requestTime] = [
      await histogramTotals(engine.metrics.appendDuration),
      await histogramTotals(engine.metrics.httpDuration),
    ];
    const decided = await decisionTotals(engine.metrics.decisions);
    process.send!({
      cpuMicros: user + system,
      answered,
      threads: threads && [...threads],
      pid: process.pid,
      events,
      commits,
      appendWait,
      requestTime,
      decided,
      gc: gc.take(),
    } satisfies Usage);
  });
  process.send!(ready);
}

async function client(): Promise<void> {
  const seconds = Number(process.argv[2] ?? 10);
  const rate = Number(process.argv[3] ?? 2000);
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['server'], { execArgv: process.execArgv });
  const ready = await new Promise<Ready>((resolve) => child.once('message', (m) => resolve(m as Ready)));
  const usage = () =>
    new Promise<Usage>((resolve) => {
      child.once('message', (m) => resolve(m as Usage));
      child.send('usage');
    });
  // The echo keeps no state, so a small pool serves it; the instant route's covers its ~40,000 requests of a run.
  const names = new NewNameCounter();
  const body = { instant: requestBodies(65_536, { names }), echo: requestBodies(1024) };
  const headers = { 'content-type': 'application/json', apiKey: ready.apiKey, apiSecret: ready.apiSecret };
  const routes = {
    instant: { port: ready.instant, path: '/api/v1/transaction-monitoring/instant' },
    echo: { port: ready.echo, path: '/echo' },
  };
  type Route = keyof typeof routes;

  /** Runs `load` and prints one line with the server's CPU per answered request. */
  const measured = async <T>(name: string, route: Route, load: () => Promise<T>, line: (r: T) => string): Promise<T & { cpu: number }> => {
    const before = await usage();
    const generator = process.cpuUsage();
    const result = await load();
    const generated = process.cpuUsage(generator);
    const after = await usage();
    const answered = after.answered - before.answered;
    const cpu = (after.cpuMicros - before.cpuMicros) / Math.max(1, answered);
    console.log(`${name.padEnd(40)} ${line(result)}  server CPU ${cpu.toFixed(0)} µs/req`);
    const threads = (u: Usage): ThreadTimes | undefined => u.threads && new Map(u.threads);
    const byThread = describeThreadCpu(threads(before), threads(after), answered, after.pid);
    if (byThread) console.log(`  server ${byThread}`);
    const commits = after.commits - before.commits;
    // Each commit costs the writer thread a fixed few hundred µs: how many events share one says what a request pays.
    // (The echo writes nothing: what a run of it counts is the tail of the instant route's warm-up.)
    if (route === 'instant' && commits > 0)
      console.log(`  ${commits} group commits, ${((after.events - before.events) / commits).toFixed(1)} events per commit`);
    if (route === 'instant' && after.decided.all > before.decided.all) console.log(`  ${flaggedShare(before.decided, after.decided)}`);
    if (route === 'instant') console.log(`  ${names.since()}`);
    // Where a request's time in the server goes: most of it, at saturation, is the wait for its group commit.
    if (route === 'instant' && after.requestTime.count > before.requestTime.count) {
      const [inServer, waiting] = [
        meanMsBetween(before.requestTime, after.requestTime),
        meanMsBetween(before.appendWait, after.appendWait),
      ];
      console.log(
        `  in the server: ${inServer.toFixed(2)} ms per request (mean), of which waiting for its durable commit ${waiting.toFixed(2)} ms`,
      );
    }
    if (route === 'instant') console.log(`  server main thread GC: ${describeGc(after.gc)}`);
    // The generator shares the two cores with the server: what it takes, the server cannot have.
    console.log(`  load generator CPU ${((generated.user + generated.system) / Math.max(1, answered)).toFixed(0)} µs/req`);
    return { ...result, cpu };
  };
  const saturate = (route: Route, duration: number) =>
    new Promise<autocannon.Result>((resolve, reject) =>
      autocannon(
        {
          url: `http://127.0.0.1:${routes[route].port}`,
          duration,
          connections: 100,
          requests: [{ method: 'POST', path: routes[route].path, headers, setupRequest: (req) => ({ ...req, body: body[route]() }) }],
        },
        (err, result) => (err ? reject(err) : resolve(result)),
      ),
    );
  const saturation = (route: Route, name: string) =>
    measured(
      name,
      route,
      async () => {
        const r = await saturate(route, seconds);
        return {
          perSecond: r.requests.total / r.duration,
          p50: r.latency.p50,
          p90: r.latency.p90,
          p99: r.latency.p99,
          p999: r.latency.p99_9,
          errors: r.errors + r.timeouts,
          non2xx: r.non2xx,
        };
      },
      (r) =>
        `${r.perSecond.toFixed(0).padStart(6)}/s  p50 ${r.p50} p90 ${r.p90} p99 ${r.p99} p99.9 ${r.p999} ms  errors ${r.errors}  non-2xx ${r.non2xx}`,
    );
  const fixed = (route: Route, name: string) =>
    measured(
      name,
      route,
      () => openLoop({ ...routes[route], headers, body: body[route], rate, seconds, connections: 50 }),
      (r) =>
        `${r.served.toFixed(0).padStart(6)}/s served  p50 ${r.p50.toFixed(1)} p90 ${r.p90.toFixed(1)} p99 ${r.p99.toFixed(1)} p99.9 ${r.p999.toFixed(1)} max ${r.max.toFixed(0)} ms  errors ${r.errors}  non-2xx ${r.non2xx}  unanswered ${r.unanswered}`,
    );

  await saturate('echo', 2);
  await saturate('instant', 3);
  names.since();
  const echoRate = await fixed('echo', `bare Hono echo, ${rate}/s offered`);
  const instantRate = await fixed('instant', `POST /instant, ${rate}/s offered`);
  const echoSat = await saturation('echo', 'bare Hono echo, saturation (100 conns)');
  const instantSat = await saturation('instant', 'POST /instant, saturation (100 conns)');
  const ratio = (a: number, b: number) => (a / b).toFixed(2);
  console.log(`\nsaturation throughput instant/echo: ${ratio(instantSat.perSecond, echoSat.perSecond)}`);
  console.log(`p99 at ${rate}/s instant/echo: ${ratio(instantRate.p99, Math.max(0.01, echoRate.p99))}`);
  console.log(`server CPU per request at saturation, instant minus echo: ${(instantSat.cpu - echoSat.cpu).toFixed(0)} µs`);
  printBudget([
    { what: 'POST /instant at saturation', measured: instantSat.perSecond, unit: 'requests/s', target: BUDGET.httpPerSecond },
    {
      what: 'POST /instant at saturation against the bare echo',
      measured: instantSat.perSecond / echoSat.perSecond,
      unit: '×',
      target: BUDGET.httpToEcho,
    },
    // The target holds at the budget's rate; at any other RATE the p99 is only reported.
    {
      what: `POST /instant, p99 at ${rate}/s offered`,
      measured: instantRate.p99,
      unit: 'ms',
      target: rate === BUDGET.httpP99AtRate ? BUDGET.httpP99Ms : 'reported',
    },
  ]);
  child.disconnect();
}

if (process.argv[2] === 'server') await server();
else await client();
