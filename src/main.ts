import { serve } from '@hono/node-server';
import type { Server } from 'node:http';
import { loadConfig } from './config.js';
import { createEngine } from './engine.js';
import { createApp } from './http/app.js';
import { createLogger } from './logger.js';
import { PartitionLeases } from './partitions/index.js';

/** A bad setting stops the start with its one-line message naming the variable, not a stack trace. */
function configOrExit() {
  try {
    return loadConfig();
  } catch (error) {
    process.stderr.write(`compliance engine: ${(error as Error).message}\n`);
    process.exit(1);
  }
}

const config = configOrExit();
const logger = createLogger(config.logLevel);
const engine = await createEngine({
  dataDir: config.dataDir,
  screeningCacheDir: config.screeningCacheDir,
  databaseUrl: config.databaseUrl,
  nodeId: config.nodeId,
  rulesDir: config.rulesDir,
  logger,
  allowInsecureWebhooks: config.allowInsecureWebhooks,
  publicBaseUrl: config.publicBaseUrl,
  uploadSigningSecret: config.uploadSigningSecret,
  snapshotEvery: config.snapshotEvery,
  auditSigningKey: config.auditSigningKey,
  auditOrigin: config.auditOrigin,
  auditSigningKeyFile: config.auditSigningKeyFile,
  auditWitnesses: config.auditWitnesses,
  auditCheckpointIntervalSeconds: config.auditCheckpointInterval,
  rateLimits: config.rateLimits,
  decisionConcurrency: config.decisionConcurrency,
  commitIntervalMs: config.commitIntervalMs,
  uploadQuota: config.uploadQuota,
  backtests: config.backtests,
  consoleIdleMs: config.consoleIdleMinutes && config.consoleIdleMinutes * 60_000,
  partitions: config.partitions,
  decisionThreads: config.decisionThreads,
  passwordScryptN: config.passwordScryptN,
  allowWeakPasswordHash: config.allowWeakPasswordHash,
});

if (config.bootstrapApiKey && config.bootstrapApiSecret && !(await engine.auth.hasAnyKey())) {
  await engine.auth.issue({ name: 'bootstrap', apiKey: config.bootstrapApiKey, apiSecret: config.bootstrapApiSecret });
  logger.info({ apiKey: config.bootstrapApiKey }, 'registered the bootstrap API key');
}

// A node of several (PostgreSQL) with an address the others can reach leases its share of the partitions.
const { url: nodeUrl, renewMs, ttlMs } = config.node;
const leasing = engine.backend === 'postgres' && nodeUrl !== undefined;
if (leasing) {
  // A business set up before partition counts were recorded gets one now, so that its partitions are leased too.
  const backfilled = await engine.partitions.backfill(new Set((await engine.auth.list()).map((k) => k.businessId)), config.partitions);
  if (backfilled.length > 0) logger.info({ businesses: backfilled }, 'partition counts recorded for businesses that had none');
}
const leases = leasing
  ? await PartitionLeases.start(engine.db, engine.store, logger, { nodeId: engine.nodeId, url: nodeUrl, renewMs, ttlMs })
  : undefined;
if (leases) {
  engine.metrics.watchPartitions(() => leases.owned);
  // Its state then holds only the partitions it leases, built from the log as it takes each over.
  engine.monitoring.followPartitions(leases);
}
const app = createApp(engine, { bodyLimitBytes: config.bodyLimitBytes, publicBaseUrl: config.publicBaseUrl, leases });
const server = serve({ fetch: app.fetch, port: config.port }, (info) => {
  logger.info(
    { port: info.port, dataDir: config.dataDir, rulesDir: config.rulesDir, backend: engine.backend, node: engine.nodeId, nodeUrl },
    'compliance engine listening',
  );
});

/** How long requests already received may take to be answered at shutdown before their connections are cut. */
const SHUTDOWN_GRACE_MS = 10_000;

/**
 * Release this node's partition leases, stop taking connections, answer the requests already received, close idle
 * keep-alive connections, then close the engine. engine.close() waits for the appends already queued, not for a request still being validated or
 * decided: draining the server first means none of those meets a closed store.
 */
async function shutdown(signal: string) {
  logger.info({ signal }, 'shutting down');
  // The other nodes take this one's partitions at their next renewal, while it answers what it has received.
  await leases?.close();
  const http = server as Server;
  // close() also closes the idle keep-alive connections (Node 19 and later).
  const drained = new Promise<void>((resolve) => http.close(() => resolve()));
  const cut = setTimeout(() => http.closeAllConnections(), SHUTDOWN_GRACE_MS);
  await drained;
  clearTimeout(cut);
  await engine.close();
  process.exit(0);
}
process.once('SIGTERM', () => void shutdown('SIGTERM'));
process.once('SIGINT', () => void shutdown('SIGINT'));
