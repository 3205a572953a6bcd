/**
 * Fairness between tenants: tenant B's decision latency alone and while tenant A bursts decisions as fast as 64
 * connections allow, in the same run, once with neither rate limits nor turns (the service's capacity shared first
 * come, first served) and once with the defaults (per-key limits, and businesses taking turns at DECISION_CONCURRENCY
 * decisions in progress). The server runs in a child process; the load comes from
 * here, B's at a fixed rate through the open-loop generator (latency from each request's due time).
 * Usage: [DECISION_CONCURRENCY=N] npm run bench:fairness [-- SECONDS] [B_RATE]
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import autocannon from 'autocannon';
import { serverEngine } from './server-engine.js';
import { createApp } from '../src/http/app.js';
import { DEFAULT_DECISION_CONCURRENCY, DEFAULT_RATE_LIMITS, describeWindow, NO_RATE_LIMITS } from '../src/rate-limits.js';
import { SWITCH_POPULATION, transactionSource } from './fixtures/transactions.js';
import { openLoop, type OpenLoopResult } from './open-loop.js';

interface Ready {
  port: number;
  keys: { a: Record<string, string>; b: Record<string, string> };
}

const PATH = '/api/v1/transaction-monitoring/instant';
const BURST_CONNECTIONS = 64;
/** DECISION_CONCURRENCY from the environment, to try other values than the default. */
const concurrency = process.env.DECISION_CONCURRENCY ? Number(process.env.DECISION_CONCURRENCY) : DEFAULT_DECISION_CONCURRENCY;

async function server(limited: boolean): Promise<void> {
  const engine = await serverEngine('bench-fairness-', {
    rateLimits: limited ? {} : NO_RATE_LIMITS,
    decisionConcurrency: limited ? concurrency : 0,
  });
  const headers = async (name: string) => {
    const key = await engine.auth.issue({ name });
    return { 'content-type': 'application/json', apiKey: key.apiKey, apiSecret: key.apiSecret };
  };
  const keys = { a: await headers('tenant-a'), b: await headers('tenant-b') };
  serve({ fetch: createApp(engine).fetch, port: 0 }, (info) => process.send!({ port: info.port, keys } satisfies Ready));
}

/** A fresh reference per body (a repeated one answers from the idempotency record), parties from the switch fixture. */
function bodies(tenant: string, seed: number): () => string {
  const source = transactionSource(SWITCH_POPULATION, seed, tenant);
  return () => JSON.stringify(source());
}

const line = (r: OpenLoopResult) =>
  `p50 ${r.p50.toFixed(1)} ms  p99 ${r.p99.toFixed(1)} ms  (${r.served.toFixed(0)}/s served, non-2xx ${r.non2xx}, errors ${r.errors + r.unanswered})`;

async function run(limited: boolean, seconds: number, rate: number): Promise<{ alone: OpenLoopResult; during: OpenLoopResult }> {
  const child = fork(fileURLToPath(import.meta.url), ['server', limited ? 'limited' : 'unlimited'], { execArgv: process.execArgv });
  const ready = await new Promise<Ready>((resolve) => child.once('message', (m) => resolve(m as Ready)));
  let seed = 10;
  const tenantB = (s: number) =>
    openLoop({ port: ready.port, path: PATH, headers: ready.keys.b, body: bodies('B', seed++), rate, seconds: s, connections: 8 });
  // Warm-up: JIT and the instant path's state, both tenants, under any limit.
  await Promise.all([
    tenantB(2),
    openLoop({ port: ready.port, path: PATH, headers: ready.keys.a, body: bodies('A', 1), rate: 200, seconds: 2, connections: 8 }),
  ]);
  const alone = await tenantB(seconds);
  const aBody = bodies('A', 3);
  const burst = new Promise<autocannon.Result>((resolve, reject) =>
    autocannon(
      {
        url: `http://127.0.0.1:${ready.port}`,
        duration: seconds + 2,
        connections: BURST_CONNECTIONS,
        requests: [{ method: 'POST', path: PATH, headers: ready.keys.a, setupRequest: (req) => ({ ...req, body: aBody() }) }],
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    ),
  );
  await new Promise((r) => setTimeout(r, 1000));
  const during = await tenantB(seconds);
  const a = await burst;
  const title = limited
    ? `defaults: decisions ${DEFAULT_RATE_LIMITS.decisions ? describeWindow(DEFAULT_RATE_LIMITS.decisions) : 'unlimited'} a business, businesses take turns past ${concurrency} in progress`
    : 'no rate limits, first come first served';
  console.log(`\n${title}`);
  console.log(`  tenant B alone, ${rate}/s offered:          ${line(alone)}`);
  console.log(`  tenant B during A's burst, ${rate}/s offered: ${line(during)}`);
  console.log(
    `  tenant A's burst (${BURST_CONNECTIONS} connections, closed loop): ${(a.requests.total / a.duration).toFixed(0)}/s answered, ${((a.requests.total - a.non2xx) / a.duration).toFixed(0)}/s decided, ${(a.non2xx / a.duration).toFixed(0)}/s refused (429)`,
  );
  console.log(`  tenant B p99 during / alone: ${(during.p99 / alone.p99).toFixed(2)}x`);
  child.disconnect();
  await new Promise((r) => child.once('exit', r));
  return { alone, during };
}

if (process.argv[2] === 'server') await server(process.argv[3] === 'limited');
else {
  const seconds = Number(process.argv[2] ?? 8);
  const rate = Number(process.argv[3] ?? 20);
  await run(false, seconds, rate);
  await run(true, seconds, rate);
}
