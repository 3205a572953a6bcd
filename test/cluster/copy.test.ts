import { rmSync } from 'node:fs';
import { expect, it } from 'vitest';
import { runCli, tempDir, testEngine } from '../helpers.js';
import { tx } from '../monitoring/fixtures.js';
import { createTestDatabase, describePostgres } from '../postgres.js';

describePostgres('store copy from SQLite to PostgreSQL', () => {
  it('moves the log with its chain, rebuilds read models equal to the source, and replay works on the copy', async () => {
    const t = await testEngine();
    const database = await createTestDatabase();
    const nodeDir = tempDir('ce-node-');
    try {
      const { engine } = t;
      const key = await engine.auth.issue({ name: 'switch' });
      const actor = { businessId: key.businessId };
      for (let i = 0; i < 12; i++) await engine.decide(tx(`COPY-${i}`, { anonymizedUserData: { uniqueId: `copy-user-${i % 3}` } }), actor);
      await engine.monitoring.addToBlacklist(actor, 'users', 'copy-user-1');
      await engine.decide(tx('COPY-LISTED', { anonymizedUserData: { uniqueId: 'copy-user-1' } }), actor);
      await engine.users.create(actor, { firstName: 'Ada', lastName: 'Obi', email: 'ada@example.com', role: 'analyst' });
      await engine.cases.open({
        ...actor,
        module: 'aml',
        record: { id: 'r1', type: 'customer', name: 'N' },
        title: 'hit',
        description: '',
        priority: 'low',
      });
      const head = await engine.store.head();
      await engine.close();

      const copied = await runCli(t.dir, 'store', 'copy', '--to', database.url);
      expect(copied.stderr).not.toMatch(/store copy:/);
      expect(copied.code).toBe(0);
      expect(copied.stdout).toContain(`copied ${head} events; hash chain intact`);
      expect(copied.stdout).toContain("OK: read models rebuilt on the target equal the source's");

      const again = await runCli(t.dir, 'store', 'copy', '--to', database.url);
      expect(again).toMatchObject({ code: 1, stderr: expect.stringContaining(`the target already holds ${head} events`) });

      const onCopy = { DATA_DIR: nodeDir.path, DATABASE_URL: database.url };
      const verified = await runCli(onCopy, 'replay', '--verify');
      expect(verified.stdout).toContain(`hash chain: intact (${head} events checked)`);
      expect(verified.code).toBe(0);
      expect((await runCli(onCopy, 'replay', '--rebuild', '--verify')).code).toBe(0);
    } finally {
      await database.drop();
      nodeDir.remove();
      rmSync(t.dir, { recursive: true, force: true });
    }
  }, 240_000);
});
