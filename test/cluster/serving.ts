import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { afterEach, beforeEach } from 'vitest';
import { createEngine, type Engine, type EngineOptions } from '../../src/engine.js';
import { createApp } from '../../src/http/app.js';
import { PartitionLeases } from '../../src/partitions/index.js';
import { screeningCacheDir, silentLogger, tempDir } from '../helpers.js';
import { createTestDatabase, type TestDatabase } from '../postgres.js';

/** Short, so that the tests see leases lapse and move in a second or two. */
export const LEASES = { renewMs: 200, ttlMs: 1000 } as const;

/** An engine node as `npm start` runs it with NODE_URL set: its HTTP server on a port of its own, leasing partitions. */
export interface ServedNode {
  id: string;
  url: string;
  engine: Engine;
  leases: PartitionLeases;
  /** The partitions whose state the node holds (it decides only those). */
  follower: ReturnType<Engine['monitoring']['followPartitions']>;
  /** Stops answering HTTP while the node goes on leasing: an owner that cannot be reached. */
  stopServing(): Promise<void>;
  /** As at shutdown: leases released, then the engine closed. */
  close(): Promise<void>;
}

export async function serveNode(
  databaseUrl: string,
  id: string,
  before?: (engine: Engine) => Promise<void>,
  options: Partial<EngineOptions> = {},
): Promise<ServedNode> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dir = tempDir('ce-node-');
  const engine = await createEngine({
    dataDir: dir.path,
    databaseUrl,
    nodeId: id,
    screeningCacheDir,
    logger: silentLogger,
    tailIntervalMs: 200,
    workerIntervalMs: 0,
    ...options,
  });
  await before?.(engine);
  const leases = await PartitionLeases.start(engine.db, engine.store, silentLogger, { nodeId: id, url, ...LEASES });
  engine.metrics.watchPartitions(() => leases.owned);
  const follower = engine.monitoring.followPartitions(leases);
  server.on('request', getRequestListener(createApp(engine, { leases }).fetch));
  const stopServing = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return {
    id,
    url,
    engine,
    leases,
    follower,
    stopServing,
    async close() {
      if (server.listening) await stopServing();
      await leases.close();
      await engine.close();
      dir.remove();
    },
  };
}

/** Resolves once `holds()` does; rejects after `timeoutMs` with `what`. */
export async function until(what: string, holds: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const started = performance.now();
  while (!(await holds())) {
    if (performance.now() - started > timeoutMs) throw new Error(`still not so after ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A metric's value in a node's /metrics text (0 when absent). */
export async function metric(url: string, series: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

/** A database of its own for each test of the describe block; the nodes a test puts in `nodes` are closed after it. */
export function nodesPerTest(): { database: TestDatabase; nodes: ServedNode[] } {
  const each = { database: undefined as unknown as TestDatabase, nodes: [] as ServedNode[] };
  beforeEach(async () => {
    each.database = await createTestDatabase();
    each.nodes = [];
  });
  afterEach(async () => {
    await Promise.allSettled(each.nodes.map((n) => n.close()));
    await each.database.drop();
  });
  return each;
}
