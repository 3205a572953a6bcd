import { resolve } from 'node:path';

/** Everything the process reads from its environment, in one place (docs/operations.md's configuration table). */
export interface Config {
  port: number;
  dataDir: string;
  rulesDir: string;
  logLevel: string;
  bootstrapApiKey?: string;
  bootstrapApiSecret?: string;
  allowInsecureWebhooks: boolean;
  publicBaseUrl: string;
  uploadSigningSecret?: string;
  bodyLimitBytes: number;
  /** Unset: the engine's default. */
  snapshotEvery?: number;
  /** Backtests that may run at once, per business and in all (unset: the engine's defaults, 1 and 2). */
  backtests: { perBusiness?: number; total?: number };
}

/** A positive whole number from the environment variable `name`, or undefined when it is unset. */
function positiveInteger(env: NodeJS.ProcessEnv, name: string, what: string): number | undefined {
  const text = env[name];
  if (text === undefined || text === '') return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a whole number of ${what} of at least 1, got ${text}`);
  return n;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = Number(env.PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be an integer from 0 to 65535, got ${env.PORT}`);
  const snapshotEvery = env.SNAPSHOT_EVERY ? Number(env.SNAPSHOT_EVERY) : undefined;
  if (snapshotEvery !== undefined && !(Number.isInteger(snapshotEvery) && snapshotEvery >= 0))
    throw new Error(`SNAPSHOT_EVERY must be a whole number of events (0: never write), got ${env.SNAPSHOT_EVERY}`);
  return {
    port,
    dataDir: resolve(env.DATA_DIR ?? './data'),
    rulesDir: resolve(env.RULES_DIR ?? './rules'),
    logLevel: env.LOG_LEVEL ?? 'info',
    bootstrapApiKey: env.BOOTSTRAP_API_KEY || undefined,
    bootstrapApiSecret: env.BOOTSTRAP_API_SECRET || undefined,
    allowInsecureWebhooks: env.ALLOW_INSECURE_WEBHOOKS === 'true',
    publicBaseUrl: (env.PUBLIC_BASE_URL ?? `http://localhost:${port}`).replace(/\/$/, ''),
    bodyLimitBytes: Number(env.BODY_LIMIT_BYTES ?? 1024 * 1024),
    uploadSigningSecret: env.UPLOAD_SIGNING_SECRET || undefined,
    snapshotEvery,
    backtests: {
      perBusiness: positiveInteger(env, 'BACKTESTS_PER_BUSINESS', 'backtests'),
      total: positiveInteger(env, 'BACKTESTS_TOTAL', 'backtests'),
    },
  };
}
