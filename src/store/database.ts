import Database from 'better-sqlite3';
import { Kysely, sql, SqliteDialect } from 'kysely';
import type pg from 'pg';
import { ensurePrivateFile, narrowFile } from '../file-modes.js';
import { type Backend, backendOf, isPostgresUrl } from './backend.js';
import { openPostgres, type PostgresOptions } from './postgres.js';

export interface OpenedDatabase {
  db: Kysely<any>;
  raw: Database.Database;
}

/**
 * Pragmas, and why:
 * - journal_mode=WAL: readers never block the writer, and a commit is one sequential WAL write.
 * - synchronous=FULL: in WAL mode, NORMAL may lose the last commits on power loss; FULL fsyncs the WAL
 *   at every commit, so an acknowledged append survives SIGKILL and power loss. Group commit
 *   (one transaction for all appends of a tick) keeps that to one fsync per batch, not per request.
 * - busy_timeout: the CLI may write while the server runs; wait for the lock instead of failing.
 * - foreign_keys: read models may declare them.
 * - cache_size 64 MB (default 2 MB): the unique indexes of a long log are written at random places.
 * - wal_autocheckpoint default (1000 pages) bounds the WAL without stalling commits.
 * A file database is created 0600 (SQLite would make it 0644), and its WAL and shared-memory files take its mode.
 */
export function openDatabase(path: string, options: { readonly?: boolean } = {}): OpenedDatabase {
  if (path !== ':memory:' && !options.readonly) {
    ensurePrivateFile(path);
    for (const suffix of ['-wal', '-shm']) narrowFile(path + suffix);
  }
  const raw = new Database(path, { readonly: options.readonly ?? false });
  if (!options.readonly) {
    raw.pragma('journal_mode = WAL');
    raw.pragma('synchronous = FULL');
  }
  raw.pragma('busy_timeout = 5000');
  raw.pragma('cache_size = -65536');
  raw.pragma('foreign_keys = ON');
  const db = new Kysely<any>({ dialect: new SqliteDialect({ database: withStatementCache(raw) }) });
  return { db, raw };
}

/**
 * Kysely prepares every query it runs; better-sqlite3 compiles SQL on each prepare. The hot paths run the
 * same few statements thousands of times a second, so statements are cached by their SQL text.
 */
function withStatementCache(raw: Database.Database) {
  const cache = new Map<string, Database.Statement>();
  return {
    close: () => raw.close(),
    prepare(text: string) {
      let stmt = cache.get(text);
      if (!stmt) {
        stmt = raw.prepare(text);
        if (cache.size > 2000) cache.clear();
        cache.set(text, stmt);
      }
      return stmt;
    },
  };
}

/** The SQLite file of the log and its read models, in the data folder. */
export const LOG_FILE = 'compliance.db';

/** The store's database at a location: a SQLite file (or ':memory:'), or a `postgres://` URL. */
export interface OpenedLocation {
  db: Kysely<any>;
  backend: Backend;
  /** PostgreSQL's connection pool (its size and waiting clients go to /metrics). */
  pool?: pg.Pool;
}

export function openLocation(location: string, options: { readonly?: boolean } & PostgresOptions = {}): OpenedLocation {
  if (isPostgresUrl(location)) {
    const { db, pool } = openPostgres(location, options);
    return { db, backend: 'postgres', pool };
  }
  return { db: openDatabase(location, options).db, backend: 'sqlite' };
}

/** Arbitrary, fixed keys of PostgreSQL's advisory locks (64-bit; the ASCII of a word). */
export const ADVISORY_KEYS = {
  /** Held by each append transaction: appends commit one at a time, in position order. */
  append: 0x6c6f67617070656en, // 'logappen'
  /** Held while a node migrates the schema and catches its read models up, so nodes starting together take turns. */
  schema: 0x736368656d61n, // 'schema'
} as const;

/**
 * Runs `work` on one connection while no other node runs its own: on PostgreSQL, concurrent CREATE TABLE IF NOT
 * EXISTS of one table can fail, and two nodes catching the same new read model up would apply events twice. On
 * SQLite the process already is the only writer of its file, so `work` runs as is.
 */
export async function withSchemaLock<T>(db: Kysely<any>, work: (db: Kysely<any>) => Promise<T>): Promise<T> {
  if (backendOf(db) === 'sqlite') return work(db);
  return db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${ADVISORY_KEYS.schema.toString()}::bigint)`.execute(conn);
    try {
      return await work(conn);
    } finally {
      await sql`select pg_advisory_unlock(${ADVISORY_KEYS.schema.toString()}::bigint)`.execute(conn);
    }
  });
}
