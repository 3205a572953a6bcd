/**
 * POST /api/v1/transaction-monitoring/instant over HTTP, durable appends, default ruleset: latency at a fixed
 * offered rate and throughput at saturation, next to a bare Hono route that echoes the same JSON body, in the
 * same server process and the same run. The server runs in a child process; autocannon drives it from here.
 * Usage: npm run bench:instant-http [-- SECONDS] [RATE]
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import autocannon from 'autocannon';
import { Hono } from 'hono';
import { pino } from 'pino';
import { createEngine } from '../src/engine.js';
import { createApp } from '../src/http/app.js';
import { transactionSource } from './fixtures/transactions.js';

interface Ready {
  instant: number;
  echo: number;
  apiKey: string;
  apiSecret: string;
}

async function server(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-http-'));
  const engine = await createEngine({ dataDir: dir, logger: pino({ level: 'silent' }), tailIntervalMs: 0, workerIntervalMs: 0, watchRules: false });
  const key = await engine.auth.issue({ name: 'bench' });
  const echo = new Hono().post('/echo', async (c) => c.json({ message: 'ok', data: await c.req.json() }));
  const listen = (fetch: (r: Request) => Response | Promise<Response>) =>
    new Promise<number>((resolve) => serve({ fetch, port: 0 }, (info) => resolve(info.port)));
  const ready: Ready = { instant: await listen(createApp(engine).fetch), echo: await listen(echo.fetch), apiKey: key.apiKey, apiSecret: key.apiSecret };
  process.send!(ready);
  process.on('disconnect', () => {
    void engine.close().finally(() => {
      rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    });
  });
}

function run(name: string, options: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(options, (err, result) => {
      if (err) return reject(err);
      const l = result.latency;
      console.log(
        `${name.padEnd(44)} ${result.requests.average.toFixed(0).padStart(6)}/s  p50 ${l.p50} p90 ${l.p90} p99 ${l.p99} p99.9 ${l.p99_9} ms  errors ${result.errors + result.timeouts}  non-2xx ${result.non2xx}`,
      );
      resolve(result);
    });
  });
}

async function client(): Promise<void> {
  const seconds = Number(process.argv[2] ?? 10);
  const rate = Number(process.argv[3] ?? 2000);
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['server'], { execArgv: process.execArgv });
  const ready = await new Promise<Ready>((resolve) => child.once('message', (m) => resolve(m as Ready)));
  const next = transactionSource({ users: 20_000, receivers: 10_000 }, Date.now() % 1e6);
  const headers = { 'content-type': 'application/json', apiKey: ready.apiKey, apiSecret: ready.apiSecret };
  const target = (port: number, path: string) => ({
    url: `http://127.0.0.1:${port}`,
    duration: seconds,
    requests: [{ method: 'POST' as const, path, headers, setupRequest: (req: autocannon.Request) => ({ ...req, body: JSON.stringify(next()) }) }],
  });
  const instant = target(ready.instant, '/api/v1/transaction-monitoring/instant');
  const echo = target(ready.echo, '/echo');
  await run('warm-up (instant)', { ...instant, duration: 3, connections: 50 });
  const results: Record<string, autocannon.Result> = {};
  results.echoRate = await run(`bare Hono echo, ${rate}/s offered`, { ...echo, connections: 50, overallRate: rate });
  results.instantRate = await run(`POST /instant, ${rate}/s offered`, { ...instant, connections: 50, overallRate: rate });
  results.echoSat = await run('bare Hono echo, saturation (100 conns)', { ...echo, connections: 100 });
  results.instantSat = await run('POST /instant, saturation (100 conns)', { ...instant, connections: 100 });
  const ratio = (a: number, b: number) => (a / b).toFixed(2);
  console.log(`\nsaturation throughput instant/echo: ${ratio(results.instantSat!.requests.average, results.echoSat!.requests.average)}`);
  console.log(`p99 at ${rate}/s instant/echo: ${ratio(results.instantRate!.latency.p99, Math.max(0.01, results.echoRate!.latency.p99))}`);
  child.disconnect();
}

if (process.argv[2] === 'server') await server();
else await client();
