import type { EngineOptions } from '../../src/engine.js';
import { createEngine, type Engine } from '../../src/engine.js';
import { silentLogger, tempDir } from '../helpers.js';
import { createTestDatabase, type TestDatabase } from '../postgres.js';

export interface TestCluster {
  database: TestDatabase;
  nodes: Engine[];
  /** Starts one more node on the same database. */
  add(options?: Partial<EngineOptions>): Promise<Engine>;
  close(): Promise<void>;
}

/** `count` engine nodes on one PostgreSQL database of their own, each with its own data folder, as on separate machines. */
export async function testCluster(count: number, options: Partial<EngineOptions> = {}): Promise<TestCluster> {
  const database = await createTestDatabase();
  const dirs: ReturnType<typeof tempDir>[] = [];
  const nodes: Engine[] = [];
  const add = async (extra: Partial<EngineOptions> = {}) => {
    const dir = tempDir('ce-node-');
    dirs.push(dir);
    const engine = await createEngine({
      dataDir: dir.path,
      databaseUrl: database.url,
      nodeId: `node-${nodes.length + 1}`,
      logger: silentLogger,
      allowInsecureWebhooks: true,
      tailIntervalMs: 200,
      workerIntervalMs: 0,
      ...options,
      ...extra,
    });
    nodes.push(engine);
    return engine;
  };
  for (let i = 0; i < count; i++) await add();
  return {
    database,
    nodes,
    add,
    async close() {
      await Promise.allSettled(nodes.map((n) => n.close()));
      await database.drop();
      for (const d of dirs) d.remove();
    },
  };
}

/** Resolves once `node` has told its subscribers of everything up to `position`; rejects after `timeoutMs`. */
export async function caughtUp(node: Engine, position: number, timeoutMs = 10_000): Promise<number> {
  const started = performance.now();
  while (node.store.notifiedPosition < position) {
    if (performance.now() - started > timeoutMs) throw new Error(`${node.nodeId} still at ${node.store.notifiedPosition} of ${position}`);
    await new Promise((r) => setTimeout(r, 1));
  }
  return performance.now() - started;
}
