import { hostname } from 'node:os';
import { loadConfig } from '../config.js';
import { createEngine, type Engine } from '../engine.js';
import { stderrLogger } from '../logger.js';

/** The whole engine, for commands that use its services (screening, registry, backtests). */
export async function withEngine<T>(work: (engine: Engine) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const engine = await createEngine({
    dataDir: config.dataDir,
    screeningCacheDir: config.screeningCacheDir,
    databaseUrl: config.databaseUrl,
    nodeId: config.nodeId ?? `cli-${hostname()}-${process.pid}`,
    rulesDir: config.rulesDir,
    auditSigningKey: config.auditSigningKey,
    auditOrigin: config.auditOrigin,
    auditSigningKeyFile: config.auditSigningKeyFile,
    auditWitnesses: config.auditWitnesses,
    passwordScryptN: config.passwordScryptN,
    allowWeakPasswordHash: config.allowWeakPasswordHash,
    logger: stderrLogger(),
    tailIntervalMs: 0,
    watchRules: false,
    // The server keeps the snapshot current; a one-shot command only reads it.
    snapshotEvery: 0,
    holdDataDir: false,
  });
  try {
    return await work(engine);
  } finally {
    await engine.close();
  }
}
