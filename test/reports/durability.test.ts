import { afterAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine.js';
import { screeningCacheDir, silentLogger, tempDir } from '../helpers.js';
import { BACKENDS, createTestDatabase, skipBackend, type TestDatabase } from '../postgres.js';
import { customer, reportedCase, settings } from './fixtures.js';

const dirs: ReturnType<typeof tempDir>[] = [];
const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const d of dirs) d.remove();
  for (const db of databases) await db.drop();
});

describe.each(BACKENDS)('reports on %s', (backend) => {
  it.skipIf(skipBackend(backend))(
    'keep their settings, lifecycle and listing across a restart',
    async () => {
      const dir = tempDir();
      dirs.push(dir);
      const database = backend === '[postgres]' ? await createTestDatabase() : undefined;
      if (database) databases.push(database);
      const open = () =>
        createEngine({
          dataDir: dir.path,
          databaseUrl: database?.url,
          screeningCacheDir,
          logger: silentLogger,
          tailIntervalMs: 0,
          workerIntervalMs: 0,
        });

      const first = await open();
      const actor = { businessId: 'acme', userId: 'mlro' };
      await first.reports.configure(actor, settings());
      await first.cdd.customers.create({ businessId: 'acme' }, customer('cust1', '0123456789'));
      const caseId = await reportedCase(first, 'acme', 'cust1', '0123456789', 'DUR-1');
      const report = await first.reports.draftStr(actor, { caseId });
      await first.reports.approve(actor, report.id);
      await first.reports.submit(actor, report.id, 'download');
      await first.close();

      const again = await open();
      try {
        expect(await again.reports.settings('acme')).toMatchObject({ fiu: 'uae', rentityId: 1042 });
        expect(await again.reports.get('acme', report.id)).toMatchObject({ status: 'submitted', submittedVia: 'download', caseId });
        expect((await again.reports.list('acme', { status: 'submitted' }, { page: 1, limit: 10 })).reports.map((r) => r.id)).toEqual([
          report.id,
        ]);
        await again.reports.acknowledge(actor, report.id, 'NFIU-7');
        expect((await again.reports.get('acme', report.id)).fiuReference).toBe('NFIU-7');
      } finally {
        await again.close();
      }
    },
    400_000,
  );
});
