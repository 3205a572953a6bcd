import type { WitnessPolicy } from './audit/index.js';
import type { Clock } from './clock.js';
import type { Logger } from './logger.js';
import type { BacktestLimits } from './monitoring/index.js';
import type { RateLimits } from './rate-limits.js';

/** What `createEngine` takes: every setting of the engine, each defaulting as its comment says. */
export interface EngineOptions {
  /**
   * Folder of the SQLite file; ':memory:' keeps everything in memory (tests, trials). With `databaseUrl` the log
   * and read models are in PostgreSQL, and this folder keeps only what is this node's own (state snapshots,
   * temporary files of uploads being received, the upload signing key when none is given).
   */
  dataDir: string;
  /** `postgres://…`: the log and every read model in PostgreSQL, shared by every node on it (docs/postgres.md). */
  databaseUrl?: string;
  /** This node's name, in /healthz and the log's commit notifications; default host name and process id. */
  nodeId?: string;
  /** Rules, decision lists, CDD workflows and risk models (default: the ones bundled with the package). */
  rulesDir?: string;
  clock?: Clock;
  /** Hold DATA_DIR with a lock file (default true), refusing one another live node holds; the CLI's one-shot commands don't. */
  holdDataDir?: boolean;
  /** Where the engine's lines go (default: stderr at LOG_LEVEL, else warn; stdout is the host's). */
  logger?: Logger;
  allowInsecureWebhooks?: boolean;
  /** Base of the URLs the engine hands out (signed uploads). */
  publicBaseUrl?: string;
  /** Key of the upload URL signatures; without it one is generated once and kept in dataDir (PostgreSQL: shared in the database). */
  uploadSigningSecret?: string;
  /**
   * Run the log's transactions in a worker thread (default for a file database), so commits and their fsync
   * overlap with deciding instead of blocking it. In-memory databases always write inline.
   */
  writerThread?: boolean;
  /** How often to look for events appended by another process (the CLI); 0 turns it off. */
  tailIntervalMs?: number;
  /** Reload the rules directory when its files change (default true; the CLI turns it off). */
  watchRules?: boolean;
  /** How often background workers (webhook delivery, screening jobs) look for due work; 0 turns them off and
   * leaves them to explicit `runDue()` / `runPending()` calls (tests). Defaults to the tail interval. */
  workerIntervalMs?: number;
  /**
   * Where the screening lists are kept parsed and indexed between starts (SCREENING_CACHE_DIR), so a start reads
   * them instead of parsing the bundled XLSX and CSVs and normalising every name again. Default dataDir/cache;
   * an in-memory engine keeps none unless given one.
   */
  screeningCacheDir?: string;
  /**
   * Events between two snapshots of the monitoring state (kept in dataDir/snapshots, written by a thread of
   * their own, and at close; a start restores the latest and replays only the log after it). Default 250,000;
   * 0 reads snapshots but never writes one (the CLI).
   */
  snapshotEvery?: number;
  /**
   * IP geolocation for the rules' `ipCountry(ip)`: the ISO 3166 alpha-2 code of an address, or undefined when
   * unknown. The engine ships no geolocation data, so without this `ipCountry` is always missing and rules on it
   * never fire. It runs on the instant path for every decision that asks, so it must answer from memory.
   */
  ipCountry?: (ip: string) => string | undefined;
  /** The Ed25519 key that signs the audit log's tree heads (AUDIT_SIGNING_KEY); without it, dataDir/audit-signing-key.pem (PostgreSQL: shared in the database). */
  auditSigningKey?: string;
  /** The audit log's origin line (AUDIT_LOG_ORIGIN); default from `publicBaseUrl`'s host (src/audit/checkpoint-text.ts). */
  auditOrigin?: string;
  /** A file holding the audit signing key, outside dataDir (AUDIT_SIGNING_KEY_FILE). */
  auditSigningKeyFile?: string;
  /** Witnesses asked to cosign each audit checkpoint, and the quorum (AUDIT_WITNESSES, AUDIT_WITNESS_QUORUM). */
  auditWitnesses?: WitnessPolicy;
  /** Seconds between tree heads the engine signs and publishes (log, webhooks, metrics); 0 or unset: none. */
  auditCheckpointIntervalSeconds?: number;
  /** How often a server stores the audit tree's right edge when the log grew (default 10,000 ms; docs/audit.md). */
  auditEdgeIntervalMs?: number;
  /** While writes fail for lack of space, how often the data folder is probed for room again (default 5000 ms). */
  storageProbeMs?: number;
  /**
   * Per-API-key request limits of the HTTP routes, by route class (src/rate-limits.ts); a class left out keeps its
   * default, a class set to null has none.
   */
  rateLimits?: RateLimits;
  /** HTTP decisions in progress at once before businesses take turns (default 16, 0: first come, first served). */
  decisionConcurrency?: number;
  /** Under concurrent load, the least milliseconds between two commits of the log (default 3; docs/operations.md). */
  commitIntervalMs?: number;
  /** Per-business upload quotas: bytes stored and reserved (default 10 GiB), pending upload URLs (default 50). */
  uploadQuota?: { bytes?: number; pendingUrls?: number };
  /** How many backtests may run at once, per business and in all (default 1 and 2); more are refused with a BusyError. */
  backtests?: Partial<BacktestLimits>;
  /** How long a console session lasts without a request (default 30 minutes; never past 8 hours from sign-in). */
  consoleIdleMs?: number;
  /**
   * scrypt's N for new console passwords (PASSWORD_SCRYPT_N): a power of two, default and least 2^17 (OWASP's
   * floor), at most 2^20. Lower only with `allowWeakPasswordHash` (tests), and the engine warns at start.
   */
  passwordScryptN?: number;
  /** Accept a `passwordScryptN` below OWASP's floor (ALLOW_WEAK_PASSWORD_HASH=true): for test runs, never a deployment. */
  allowWeakPasswordHash?: boolean;
  /** The partition count a new business records at set-up (PARTITIONS, default 64; docs/operations.md). */
  partitions?: number;
  /**
   * Worker threads that make instant decisions, each its share of every business's partitions (DECISION_THREADS;
   * docs/architecture.md). Default 1: decisions are made on the caller's thread. More needs a SQLite file, the
   * writer thread, the system clock and no `ipCountry`; the server defaults to one fewer than the cores.
   */
  decisionThreads?: number;
}
