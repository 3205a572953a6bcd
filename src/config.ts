import { resolve } from 'node:path';

/** Everything the process reads from its environment, in one place (the README's configuration table). */
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
  /** Ed25519 private key signing the audit log's tree heads (PEM or base64 PKCS#8); unset: DATA_DIR/audit-signing-key.pem. */
  auditSigningKey?: string;
  /** Seconds between published signed tree heads; 0: none. */
  auditCheckpointInterval: number;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = Number(env.PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be an integer from 0 to 65535, got ${env.PORT}`);
  const snapshotEvery = env.SNAPSHOT_EVERY ? Number(env.SNAPSHOT_EVERY) : undefined;
  if (snapshotEvery !== undefined && !(Number.isInteger(snapshotEvery) && snapshotEvery >= 0))
    throw new Error(`SNAPSHOT_EVERY must be a whole number of events (0: never write), got ${env.SNAPSHOT_EVERY}`);
  const auditCheckpointInterval = Number(env.AUDIT_CHECKPOINT_INTERVAL ?? 0);
  if (!(Number.isInteger(auditCheckpointInterval) && auditCheckpointInterval >= 0))
    throw new Error(`AUDIT_CHECKPOINT_INTERVAL must be a whole number of seconds (0: never publish), got ${env.AUDIT_CHECKPOINT_INTERVAL}`);
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
    auditSigningKey: env.AUDIT_SIGNING_KEY || undefined,
    auditCheckpointInterval,
  };
}
