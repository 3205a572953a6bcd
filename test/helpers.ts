import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { pino } from 'pino';
import type { IssuedKey } from '../src/auth/index.js';
import type { Clock } from '../src/clock.js';
import { passwordHashSettings } from '../src/config.js';
import { createEngine, type Engine, type EngineOptions } from '../src/engine.js';
import { createApp } from '../src/http/app.js';
import { createTestDatabase, type TestBackend } from './postgres.js';

export const silentLogger = pino({ level: 'silent' });

/**
 * The screening lists parsed and indexed once for the whole run (test/vitest.config.ts sets SCREENING_CACHE_DIR).
 * An engine started without it caches them under its own fresh DATA_DIR, so the first engine of each test file
 * would parse and index every bundled list again.
 */
export const screeningCacheDir = process.env.SCREENING_CACHE_DIR || undefined;

/**
 * The run's scrypt cost for console passwords (test/vitest.config.ts sets PASSWORD_SCRYPT_N low, with
 * ALLOW_WEAK_PASSWORD_HASH): at production strength every sign-in and password set costs 0.3 s of CPU and 128 MiB.
 */
const passwordHash = passwordHashSettings(process.env);

export function tempDir(prefix = 'ce-test-'): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export interface TestEngine {
  engine: Engine;
  dir: string;
  close(): Promise<void>;
}

/** `backend: '[postgres]'` puts the engine on a PostgreSQL database of its own, dropped at close. */
export interface TestEngineOptions extends Partial<EngineOptions> {
  clock?: Clock;
  backend?: TestBackend;
}

export async function testEngine(options: TestEngineOptions = {}): Promise<TestEngine> {
  const dir = tempDir();
  const { backend, ...engineOptions } = options;
  const database = backend === '[postgres]' ? await createTestDatabase() : undefined;
  const engine = await createEngine({
    dataDir: dir.path,
    screeningCacheDir,
    logger: silentLogger,
    tailIntervalMs: 0,
    allowInsecureWebhooks: true,
    databaseUrl: database?.url,
    ...passwordHash,
    ...engineOptions,
  });
  return {
    engine,
    dir: dir.path,
    async close() {
      await engine.close();
      await database?.drop();
      dir.remove();
    },
  };
}

/**
 * An engine over `dataDir` (which the caller keeps, to restart on it) with no timers and no rule watching, its
 * screening lists from the run's cache.
 */
export function openEngine(dataDir: string, options: Partial<EngineOptions> = {}): Promise<Engine> {
  return createEngine({
    dataDir,
    logger: silentLogger,
    tailIntervalMs: 0,
    workerIntervalMs: 0,
    watchRules: false,
    screeningCacheDir,
    ...passwordHash,
    ...options,
  });
}

export interface TestApi extends TestEngine {
  app: ReturnType<typeof createApp>;
  /** Two tenants, to check that neither sees the other. */
  tenantA: IssuedKey;
  tenantB: IssuedKey;
  call(
    method: string,
    path: string,
    options?: { body?: unknown; key?: IssuedKey | null; headers?: Record<string, string> },
  ): Promise<{ status: number; body: any; headers: Headers }>;
}

export async function testApi(options: TestEngineOptions = {}): Promise<TestApi> {
  const base = await testEngine(options);
  const app = createApp(base.engine, { publicBaseUrl: 'http://localhost:8080' });
  const tenantA = await base.engine.auth.issue({ name: 'tenant-a' });
  const tenantB = await base.engine.auth.issue({ name: 'tenant-b' });
  const call: TestApi['call'] = async (method, path, opts = {}) => {
    const key = opts.key === undefined ? tenantA : opts.key;
    const headers: Record<string, string> = { ...(key ? { apiKey: key.apiKey, apiSecret: key.apiSecret } : {}), ...opts.headers };
    let body: string | undefined;
    if (opts.body !== undefined) {
      headers['Content-Type'] ??= 'application/json';
      body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    }
    const res = await app.request(path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // non-JSON bodies (metrics, docs) are returned as text
    }
    return { status: res.status, body: parsed, headers: res.headers };
  };
  return { ...base, app, tenantA, tenantB, call };
}

const run = promisify(execFile);
const bin = fileURLToPath(new URL('../bin/compliance.js', import.meta.url));

/**
 * Runs the real CLI (`npm run cli -- ...`: the bundle while it is newer than the sources, else the sources through
 * tsx) in a child process against DATA_DIR `dataDir` (or a `{ DATA_DIR, DATABASE_URL }`).
 */
export function runCli(
  where: string | Record<string, string>,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = typeof where === 'string' ? { DATA_DIR: where } : where;
  return run(process.execPath, [bin, ...args], { env: { ...process.env, ...env, LOG_LEVEL: 'silent' } }).then(
    (r) => ({ code: 0, ...r }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}
