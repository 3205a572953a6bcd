// Vitest's global setup: asks once whether PostgreSQL answers, and tells every test file (inject('postgres')).
// Without a server the PostgreSQL tests skip (the reporter prints one line saying so); with CI_REQUIRE_SERVICES=1
// the run fails instead, so CI always exercises PostgreSQL.
import pg from 'pg';
import type { TestProject } from 'vitest/node';

export const ADMIN_URL = process.env.PG_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: { url: string; available: boolean; reason: string };
  }
}

export default async function setup(project: TestProject): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 3000 });
  let reason = '';
  try {
    await client.connect();
    await client.query('select 1');
  } catch (error) {
    reason = error instanceof Error ? error.message || error.name : String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
  const available = reason === '';
  if (!available && process.env.CI_REQUIRE_SERVICES === '1')
    throw new Error(`CI_REQUIRE_SERVICES=1 but PostgreSQL at ${ADMIN_URL} does not answer: ${reason}`);
  project.provide('postgres', { url: ADMIN_URL, available, reason });
}
