import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decisionDaysProjection } from '../../src/reports/decision-days.js';
import { openLocation } from '../../src/store/database.js';
import { tempDir } from '../helpers.js';
import { BACKENDS, createTestDatabase, skipBackend, type TestDatabase } from '../postgres.js';

const indexes = async (db: Kysely<any>, backend: string): Promise<string[]> => {
  const found =
    backend === 'postgres'
      ? await sql<{ name: string }>`select indexname as name from pg_indexes where tablename = 'reports_decision_days'`.execute(db)
      : await sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = 'reports_decision_days'`.execute(db);
  return found.rows.map((r) => r.name).sort();
};

for (const backend of BACKENDS)
  describe.skipIf(skipBackend(backend))(`the decision days read model's key (${backend})`, () => {
    let dir: ReturnType<typeof tempDir>;
    let database: TestDatabase | undefined;
    let opened: ReturnType<typeof openLocation>;
    beforeEach(async () => {
      dir = tempDir();
      database = backend === 'sqlite' ? undefined : await createTestDatabase();
      opened = openLocation(database?.url ?? join(dir.path, 'log.db'));
    });
    afterEach(async () => {
      await opened.db.destroy();
      await database?.drop();
      dir.remove();
    });

    it('is the one index its query ranges over, and a table keyed by position with a second index is rekeyed, rows kept', async () => {
      const { db } = opened;
      // The layout the read model had: keyed by (business, position), with an index on the instants for the query.
      await sql`create table reports_decision_days (business_id text not null, happened_at text not null, position integer not null,
        constraint reports_decision_days_pk primary key (business_id, position))`.execute(db);
      await sql`create index reports_decision_days_time on reports_decision_days (business_id, happened_at, position)`.execute(db);
      await sql`insert into reports_decision_days values ('b1', '2026-11-01T10:00:00.000Z', 7), ('b1', '2026-10-31T23:00:00.000Z', 9)`.execute(
        db,
      );

      await decisionDaysProjection.migrate(db);
      await decisionDaysProjection.migrate(db);

      expect(await indexes(db, opened.backend)).toEqual(opened.backend === 'postgres' ? ['reports_decision_days_pk'] : []);
      const rows = await db.selectFrom('reports_decision_days').selectAll().orderBy('position').execute();
      expect(rows.map((r) => ({ ...r, position: Number(r.position) }))).toEqual([
        { business_id: 'b1', happened_at: '2026-11-01T10:00:00.000Z', position: 7 },
        { business_id: 'b1', happened_at: '2026-10-31T23:00:00.000Z', position: 9 },
      ]);
      if (opened.backend === 'sqlite') {
        const [table] = (await sql<{ sql: string }>`select sql from sqlite_master where name = 'reports_decision_days'`.execute(db)).rows;
        expect(table!.sql).toMatch(/primary key \("business_id", "happened_at", "position"\)\) without rowid/i);
      }
    });
  });
