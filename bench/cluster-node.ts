/**
 * One engine node of bench/cluster.ts, a server process of its own, and the messages the bench sends it: its CPU
 * and decisions answered, its tail lag, the partitions it holds, a CPU profile, its deferred passes on or off, and
 * how long its appends held the log's lock.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import { createApp } from '../src/http/app.js';
import { PartitionLeases } from '../src/partitions/index.js';
import { NO_RATE_LIMITS } from '../src/rate-limits.js';
import type { BatchTrace } from '../src/store/trace.js';
import { serverEngine } from './server-engine.js';

export interface Ready {
  port: number;
  apiKey: string;
  apiSecret: string;
}

export interface Usage {
  /** The process's CPU, user and system, all threads; of which system, and the main thread's (user and system). */
  cpuMicros: number;
  systemMicros: number;
  mainMicros: number;
  answered: number;
  /** Seconds from another node's commit to this node's state, one per commit heard of since the last reading. */
  lags: number[];
}

/** The node's appends since the last reading: how long their transactions held the log's lock (WriterTiming). */
export interface Locks {
  /** Milliseconds from BEGIN's return (the lock granted) to COMMIT's, summed over transactions. */
  heldMs: number;
  /** Transactions, and the appends (decisions) they committed. */
  commits: number;
  appends: number;
}

export type Request =
  | 'usage'
  | 'owned'
  | 'profile'
  | 'profiled'
  /** Times the node's appends from now (the lock held per decision, the serial part `s`), read by 'locks'. */
  | 'locks-start'
  | 'locks'
  /** The deferred read models' passes on or off on this node (EventStore.deferredPasses). */
  | 'deferred-on'
  | 'deferred-off'
  /** Events this node has seen that the deferred read models do not hold (EventStore.deferredLag). */
  | 'deferred-lag';

/** Starts a node; resolves once it listens, with its port (and, `issue`, an API key of the bench's business). */
export function startNode(
  databaseUrl: string,
  nodeId: string,
  issue: boolean,
  leasing: boolean,
): { child: ChildProcess; ready: Promise<Ready> } {
  const child = fork(fileURLToPath(import.meta.url), [databaseUrl, nodeId, issue ? 'issue' : ''], {
    execArgv: process.execArgv,
    env: { ...process.env, BENCH_LEASES: leasing ? '1' : '' },
  });
  return { child, ready: new Promise<Ready>((resolve) => child.once('message', (m) => resolve(m as Ready))) };
}

/** Sends `request` to a node and resolves with its answer. */
export const ask = <T>(child: ChildProcess, request: Request): Promise<T> =>
  new Promise<T>((resolve) => {
    child.once('message', (answer) => resolve(answer as T));
    child.send(request);
  });

/** The main thread's CPU (Linux: /proc/self/stat of its task, ticks of 10 ms); 0 elsewhere. */
function mainThreadMicros(): number {
  try {
    const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return 0;
  }
}

async function node(): Promise<void> {
  const [, , databaseUrl, nodeId, issue] = process.argv as string[];
  // Tailing on (LISTEN/NOTIFY, polling as the fallback): the nodes keep each other's decisions in their state.
  const engine = await serverEngine(`bench-${nodeId}-`, { rateLimits: NO_RATE_LIMITS, databaseUrl, nodeId, tailIntervalMs: 500 });
  const key = issue === 'issue' ? await engine.auth.issue({ name: 'bench' }) : { apiKey: '', apiSecret: '' };
  const lags: number[] = [];
  const observe = engine.metrics.tailLag.bind(engine.metrics);
  engine.metrics.tailLag = (seconds) => {
    lags.push(seconds);
    observe(seconds);
  };
  const locks: Locks = { heldMs: 0, commits: 0, appends: 0 };
  // Traced only between 'locks-start' and 'locks': a trace costs each batch a few allocations.
  const trace = {
    batch: (t: BatchTrace) => {
      locks.appends += t.appends.length;
      // A batch merged into the one before it shares its transaction: its hold is counted once, with that one.
      if (t.writer?.locked === undefined || t.sharedCommit) return;
      locks.heldMs += t.writer.committed - t.writer.locked;
      locks.commits++;
    },
    page: () => undefined,
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
  const leases =
    process.env.BENCH_LEASES === '1'
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
  const answers: Record<Request, () => unknown> = {
    usage: () => {
      const { user, system } = process.cpuUsage();
      return {
        cpuMicros: user + system,
        systemMicros: system,
        mainMicros: mainThreadMicros(),
        answered,
        lags: lags.splice(0),
      } satisfies Usage;
    },
    owned: () => {
      const business = leases?.businesses()[Symbol.iterator]().next().value;
      const built = business === undefined ? undefined : follower!.built(business);
      return { owned: built && leases!.mine(business!).size === built.size ? [...built] : [] };
    },
    profile: async () => {
      profiler.connect();
      await profiler.post('Profiler.enable');
      await profiler.post('Profiler.start');
      return 'profiling';
    },
    profiled: async () => {
      const { profile } = await profiler.post('Profiler.stop');
      const file = join(process.env.BENCH_PROFILE!, `apply-only-${nodeId}-${Date.now()}.cpuprofile`);
      writeFileSync(file, JSON.stringify(profile));
      return file;
    },
    'locks-start': () => {
      Object.assign(locks, { heldMs: 0, commits: 0, appends: 0 });
      engine.store.trace(trace);
      return 'tracing';
    },
    locks: () => {
      engine.store.trace(undefined);
      const reading = { ...locks };
      Object.assign(locks, { heldMs: 0, commits: 0, appends: 0 });
      return reading;
    },
    'deferred-on': () => engine.store.deferredPasses(true) ?? 'on',
    'deferred-off': () => engine.store.deferredPasses(false) ?? 'off',
    'deferred-lag': () => engine.store.deferredLag,
  };
  process.on('message', async (m) => process.send!(await answers[m as Request]()));
  process.send!({ port, ...key } satisfies Ready);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await node();
