import { relative, resolve } from 'node:path';
import { MIN_SECRET_LENGTH } from './auth/secrets.js';
import { scryptCostProblem } from './users/passwords.js';
import { rateLimitsFromEnv, type RateLimits } from './rate-limits.js';
import { isPostgresUrl } from './store/backend.js';
import { availableParallelism } from 'node:os';
import { MAX_DECISION_THREADS } from './monitoring/thread-share.js';
import { isPartitionCount, MAX_PARTITIONS } from './partitions/key.js';
import { DEFAULT_LEASE_RENEW_MS, DEFAULT_LEASE_TTL_MS } from './partitions/leases.js';
import { BUNDLED_RULES_DIR } from './package-files.js';
import { defaultOrigin } from './audit/checkpoint-text.js';
import { parseWitnessPolicy, type WitnessPolicy } from './audit/witnessing.js';

/** Everything the process reads from its environment, in one place (docs/operations.md's configuration table). */
export interface Config {
  port: number;
  dataDir: string;
  /** SCREENING_CACHE_DIR: the parsed and indexed screening lists kept between starts; unset, dataDir/cache. */
  screeningCacheDir?: string;
  /** PostgreSQL for the log and read models (several nodes on one database); unset, SQLite in dataDir. */
  databaseUrl?: string;
  nodeId?: string;
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
  /** AUDIT_LOG_ORIGIN: the name of the log in its checkpoints; unset, the host of PUBLIC_BASE_URL and /compliance-audit-log. */
  auditOrigin: string;
  /** AUDIT_SIGNING_KEY_FILE: the signing key in a file, which must lie outside DATA_DIR. */
  auditSigningKeyFile?: string;
  /** AUDIT_WITNESSES and AUDIT_WITNESS_QUORUM. */
  auditWitnesses: WitnessPolicy;
  /** RATE_LIMIT_DECISIONS, _READS, _SCREENING, _BACKTESTS, _UPLOADS, _WRITES: `500/1s`, `6/1m` or `off`. */
  rateLimits: RateLimits;
  /** DECISION_CONCURRENCY: unset, the engine's default. */
  decisionConcurrency?: number;
  /** COMMIT_INTERVAL_MS: unset, the engine's default. */
  commitIntervalMs?: number;
  /** UPLOAD_QUOTA_BYTES and UPLOAD_MAX_PENDING: per business. */
  uploadQuota: { bytes?: number; pendingUrls?: number };
  /** Backtests that may run at once, per business and in all (unset: the engine's defaults, 1 and 2). */
  backtests: { perBusiness?: number; total?: number };
  /** CONSOLE_IDLE_MINUTES: how long a console session lasts without a request (unset: 30). */
  consoleIdleMinutes?: number;
  /** PASSWORD_SCRYPT_N: scrypt's N for new console passwords (unset: 2^17); below 2^17 only with ALLOW_WEAK_PASSWORD_HASH=true. */
  passwordScryptN?: number;
  allowWeakPasswordHash: boolean;
  /** PARTITIONS: the partition count a new business records at set-up (unset: 64). */
  partitions?: number;
  /** DECISION_THREADS: threads making instant decisions (unset: one fewer than the cores, at least 1, on a SQLite file; 1 on PostgreSQL). */
  decisionThreads: number;
  /** NODE_URL, LEASE_RENEW_MS, LEASE_TTL_MS: this node's address for forwarded decisions, and its leases (PostgreSQL). */
  node: { url?: string; renewMs?: number; ttlMs?: number };
}

function positiveInteger(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const text = env[name];
  if (!text) return undefined;
  const value = Number(text);
  if (!(Number.isSafeInteger(value) && value >= 1)) throw new Error(`${name} must be a whole number above 0, got ${text}`);
  return value;
}

/** PARTITIONS, read by the server and by `keys create` alike. */
export function partitionsSetting(env: NodeJS.ProcessEnv): number | undefined {
  const text = env.PARTITIONS;
  if (!text) return undefined;
  if (!isPartitionCount(Number(text))) throw new Error(`PARTITIONS must be a whole number from 1 to ${MAX_PARTITIONS}, got ${text}`);
  return Number(text);
}

/** PASSWORD_SCRYPT_N and ALLOW_WEAK_PASSWORD_HASH, refused at start rather than at the first password set. */
export function passwordHashSettings(env: NodeJS.ProcessEnv): Pick<Config, 'passwordScryptN' | 'allowWeakPasswordHash'> {
  const allowWeakPasswordHash = env.ALLOW_WEAK_PASSWORD_HASH === 'true';
  if (!env.PASSWORD_SCRYPT_N) return { allowWeakPasswordHash };
  const passwordScryptN = Number(env.PASSWORD_SCRYPT_N);
  const problem = scryptCostProblem(passwordScryptN, allowWeakPasswordHash);
  if (problem) throw new Error(`PASSWORD_SCRYPT_N ${problem}, got ${env.PASSWORD_SCRYPT_N}`);
  return { passwordScryptN, allowWeakPasswordHash };
}

function nodeSettings(env: NodeJS.ProcessEnv): Config['node'] {
  const url = env.NODE_URL || undefined;
  if (url !== undefined && !/^https?:\/\/[^/]+\/?$/i.test(url))
    throw new Error(`NODE_URL must be this node's http:// or https:// address as other nodes reach it (scheme, host, port), got ${url}`);
  const renewMs = positiveInteger(env, 'LEASE_RENEW_MS');
  const ttlMs = positiveInteger(env, 'LEASE_TTL_MS');
  // A lease must survive a late renewal or two, or a busy node loses its partitions while alive.
  const [ttl, renew] = [ttlMs ?? DEFAULT_LEASE_TTL_MS, renewMs ?? DEFAULT_LEASE_RENEW_MS];
  if (ttl < 2 * renew) throw new Error(`LEASE_TTL_MS must be at least twice LEASE_RENEW_MS, got ${ttl} and ${renew}`);
  return { url: url?.replace(/\/$/, ''), renewMs, ttlMs };
}

/**
 * DECISION_THREADS; PostgreSQL spreads decisions over nodes instead (EngineOptions.decisionThreads). The default
 * leaves the writer thread a core: on 2 cores a second deciding thread made 0.88x the decisions of one
 * (docs/benchmarks.md, deciding threads).
 */
function decisionThreads(env: NodeJS.ProcessEnv, databaseUrl: string | undefined): number {
  const text = env.DECISION_THREADS;
  if (!text) return databaseUrl ? 1 : Math.max(1, Math.min(availableParallelism() - 1, MAX_DECISION_THREADS));
  const value = Number(text);
  if (!(Number.isInteger(value) && value >= 1 && value <= MAX_DECISION_THREADS))
    throw new Error(`DECISION_THREADS must be a whole number from 1 to ${MAX_DECISION_THREADS}, got ${text}`);
  if (value > 1 && databaseUrl) throw new Error(`DECISION_THREADS must be 1 with DATABASE_URL (run more nodes instead), got ${text}`);
  return value;
}

function commitInterval(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const value = Number(text);
  if (!(Number.isFinite(value) && value >= 0 && value <= 100))
    throw new Error(`COMMIT_INTERVAL_MS must be a number of milliseconds from 0 to 100 (0: none), got ${text}`);
  return value;
}

function secret(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name] || undefined;
  if (value !== undefined && value.length < MIN_SECRET_LENGTH)
    throw new Error(
      `${name} must be at least ${MIN_SECRET_LENGTH} characters, got ${value.length} (generate one with: openssl rand -base64 32)`,
    );
  return value;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = Number(env.PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be an integer from 0 to 65535, got ${env.PORT}`);
  const snapshotEvery = env.SNAPSHOT_EVERY ? Number(env.SNAPSHOT_EVERY) : undefined;
  if (snapshotEvery !== undefined && !(Number.isInteger(snapshotEvery) && snapshotEvery >= 0))
    throw new Error(`SNAPSHOT_EVERY must be a whole number of events (0: never write), got ${env.SNAPSHOT_EVERY}`);
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl !== undefined && !isPostgresUrl(databaseUrl))
    throw new Error(`DATABASE_URL must be a postgres:// or postgresql:// URL, got ${databaseUrl.split('@').pop()}`);
  const auditCheckpointInterval = Number(env.AUDIT_CHECKPOINT_INTERVAL ?? 0);
  if (!(Number.isInteger(auditCheckpointInterval) && auditCheckpointInterval >= 0))
    throw new Error(`AUDIT_CHECKPOINT_INTERVAL must be a whole number of seconds (0: never publish), got ${env.AUDIT_CHECKPOINT_INTERVAL}`);
  const dataDir = resolve(env.DATA_DIR ?? './data');
  const auditSigningKeyFile = env.AUDIT_SIGNING_KEY_FILE ? resolve(env.AUDIT_SIGNING_KEY_FILE) : undefined;
  if (auditSigningKeyFile && !relative(dataDir, auditSigningKeyFile).startsWith('..'))
    throw new Error(
      `AUDIT_SIGNING_KEY_FILE must lie outside DATA_DIR (${dataDir}): whoever holds the data must not hold the key, got ${auditSigningKeyFile}`,
    );
  return {
    port,
    dataDir,
    screeningCacheDir: env.SCREENING_CACHE_DIR ? resolve(env.SCREENING_CACHE_DIR) : undefined,
    databaseUrl,
    nodeId: env.NODE_ID || undefined,
    rulesDir: env.RULES_DIR ? resolve(env.RULES_DIR) : BUNDLED_RULES_DIR,
    logLevel: env.LOG_LEVEL ?? 'info',
    bootstrapApiKey: env.BOOTSTRAP_API_KEY || undefined,
    bootstrapApiSecret: secret(env, 'BOOTSTRAP_API_SECRET'),
    allowInsecureWebhooks: env.ALLOW_INSECURE_WEBHOOKS === 'true',
    publicBaseUrl: (env.PUBLIC_BASE_URL ?? `http://localhost:${port}`).replace(/\/$/, ''),
    bodyLimitBytes: Number(env.BODY_LIMIT_BYTES ?? 1024 * 1024),
    uploadSigningSecret: secret(env, 'UPLOAD_SIGNING_SECRET'),
    snapshotEvery,
    auditSigningKey: env.AUDIT_SIGNING_KEY || undefined,
    auditCheckpointInterval,
    auditOrigin: env.AUDIT_LOG_ORIGIN || defaultOrigin((env.PUBLIC_BASE_URL ?? `http://localhost:${port}`).replace(/\/$/, '')),
    auditSigningKeyFile,
    auditWitnesses: parseWitnessPolicy(env.AUDIT_WITNESSES, env.AUDIT_WITNESS_QUORUM),
    rateLimits: rateLimitsFromEnv(env),
    decisionConcurrency: env.DECISION_CONCURRENCY === '0' ? 0 : positiveInteger(env, 'DECISION_CONCURRENCY'),
    commitIntervalMs: commitInterval(env.COMMIT_INTERVAL_MS),
    uploadQuota: { bytes: positiveInteger(env, 'UPLOAD_QUOTA_BYTES'), pendingUrls: positiveInteger(env, 'UPLOAD_MAX_PENDING') },
    backtests: {
      perBusiness: positiveInteger(env, 'BACKTESTS_PER_BUSINESS'),
      total: positiveInteger(env, 'BACKTESTS_TOTAL'),
    },
    consoleIdleMinutes: positiveInteger(env, 'CONSOLE_IDLE_MINUTES'),
    partitions: partitionsSetting(env),
    decisionThreads: decisionThreads(env, databaseUrl),
    ...passwordHashSettings(env),
    node: nodeSettings(env),
  };
}
