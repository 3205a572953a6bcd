import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, inject } from 'vitest';

/** Whether PostgreSQL answered the run's global setup (test/support/postgres-setup.ts). */
export const postgres = inject('postgres');

/** A describe that runs only with PostgreSQL; its name carries the tag the skip reporter counts. */
export function describePostgres(name: string, body: () => void): void {
  describe.skipIf(!postgres.available)(`[postgres] ${name}`, body);
}

/** The backends a contract suite runs on: PostgreSQL's cases are tagged, and skipped without a server. */
export const BACKENDS = ['sqlite', '[postgres]'] as const;
export type TestBackend = (typeof BACKENDS)[number];
export const skipBackend = (backend: TestBackend): boolean => backend === '[postgres]' && !postgres.available;

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: postgres.url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * A fresh database of its own (dropped by `drop`, even with connections still open); with `copyOf`, a copy of that
 * database, which nothing may be connected to meanwhile.
 */
export async function createTestDatabase(copyOf?: TestDatabase): Promise<TestDatabase> {
  const name = `ce_test_${randomBytes(6).toString('hex')}`;
  const template = copyOf ? new URL(copyOf.url).pathname.slice(1) : 'template0';
  await admin((c) => c.query(`create database ${name} template ${template} encoding 'UTF8'`));
  const url = new URL(postgres.url);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => admin((c) => c.query(`drop database if exists ${name} with (force)`)).then(() => undefined),
  };
}
