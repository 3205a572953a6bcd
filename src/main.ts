import { serve } from '@hono/node-server';
import { loadConfig } from './config.js';
import { createEngine } from './engine.js';
import { createApp } from './http/app.js';
import { createLogger } from './logger.js';

const config = loadConfig();
const logger = createLogger(config.logLevel);
const engine = await createEngine({
  dataDir: config.dataDir,
  rulesDir: config.rulesDir,
  logger,
  allowInsecureWebhooks: config.allowInsecureWebhooks,
  publicBaseUrl: config.publicBaseUrl,
  uploadSigningSecret: config.uploadSigningSecret,
  snapshotEvery: config.snapshotEvery,
});

if (config.bootstrapApiKey && config.bootstrapApiSecret && !(await engine.auth.hasAnyKey())) {
  await engine.auth.issue({ name: 'bootstrap', apiKey: config.bootstrapApiKey, apiSecret: config.bootstrapApiSecret });
  logger.info({ apiKey: config.bootstrapApiKey }, 'registered the bootstrap API key');
}

const app = createApp(engine, { bodyLimitBytes: config.bodyLimitBytes, publicBaseUrl: config.publicBaseUrl });
const server = serve({ fetch: app.fetch, port: config.port }, (info) => {
  logger.info({ port: info.port, dataDir: config.dataDir, rulesDir: config.rulesDir }, 'compliance engine listening');
});

/** Stop taking requests, let queued appends commit, then close the database. */
async function shutdown(signal: string) {
  logger.info({ signal }, 'shutting down');
  server.close();
  await engine.close();
  process.exit(0);
}
process.once('SIGTERM', () => void shutdown('SIGTERM'));
process.once('SIGINT', () => void shutdown('SIGINT'));
