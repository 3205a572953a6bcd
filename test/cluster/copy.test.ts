import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { createEngine } from '../../src/engine.js';
import { readWhole } from '../../src/store/index.js';
import { runCli, screeningCacheDir, silentLogger, tempDir, testEngine } from '../helpers.js';
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
      // Files beside the log: an upload, a news feed and a sanctions list, in DATA_DIR on SQLite.
      const upload = Buffer.from('name,amount\nAda,120.50\n');
      const { key: uploadKey, url } = await engine.uploads.authorize(actor, { fileType: 'csv', access: 'private' });
      await engine.uploads.receive(uploadKey, Object.fromEntries(new URL(url).searchParams), [upload], upload.length);
      writeFileSync(
        join(t.dir, 'feed.jsonl'),
        JSON.stringify({
          link: 'https://news.example/7',
          title: 'Obadiah Fairweather-Nnamdi charged',
          body: 'Obadiah Fairweather-Nnamdi laundered bribes.',
        }),
      );
      writeFileSync(
        join(t.dir, 'sanctions.csv'),
        'id,name,aliases,birth_date,countries,program\nX9,Theodora Blackwood-Eze,,1971-02-03,NG,TEST\n',
      );
      await engine.screening.importArticles(join(t.dir, 'feed.jsonl'));
      await engine.screening.importList({ format: 'csv', path: join(t.dir, 'sanctions.csv'), list: 'copied-sanctions' });
      // The keys' files: a URL issued before the copy and the tree heads' key stay good on the copy.
      const pending = await engine.uploads.authorize(actor, { fileType: 'csv', access: 'private' });
      const auditKey = await engine.audit.publicKey();
      await engine.audit.treeHead();
      const head = await engine.store.head();
      await engine.close();

      const copied = await runCli(t.dir, 'store', 'copy', '--to', database.url);
      expect(copied.stderr).not.toMatch(/store copy:/);
      expect(copied.code).toBe(0);
      expect(copied.stdout).toContain(`copied ${head} events; hash chain intact`);
      expect(copied.stdout).toContain("OK: read models rebuilt on the target equal the source's");
      expect(copied.stdout).toContain(`copied 1 files (${upload.length} bytes) into upload_files; each read back and checked`);
      expect(copied.stdout).toMatch(/copied 2 files \(\d+ bytes\) into screening_files/);
      expect(copied.stdout).toContain('copied 2 keys into store_secrets (upload-signing.key, audit-signing-key.pem)');

      const again = await runCli(t.dir, 'store', 'copy', '--to', database.url);
      expect(again).toMatchObject({ code: 1, stderr: expect.stringContaining(`the target already holds ${head} events`) });

      const onCopy = { DATA_DIR: nodeDir.path, DATABASE_URL: database.url };
      const verified = await runCli(onCopy, 'replay', '--verify');
      expect(verified.stdout).toContain(`hash chain: intact (${head} events checked)`);
      expect(verified.code).toBe(0);
      expect((await runCli(onCopy, 'replay', '--rebuild', '--verify')).code).toBe(0);

      // An engine on the copy, with a data folder that never held the files, serves them.
      const copy = await createEngine({
        dataDir: nodeDir.path,
        databaseUrl: database.url,
        screeningCacheDir,
        logger: silentLogger,
        tailIntervalMs: 0,
        workerIntervalMs: 0,
      });
      try {
        const { url: download } = await copy.uploads.describe(actor.businessId, uploadKey);
        const served = await copy.uploads.open(uploadKey, Object.fromEntries(new URL(download).searchParams));
        expect(await readWhole({ read: async () => served.stream } as never, uploadKey)).toEqual(upload);
        expect((await copy.screening.adverseMedia('Obadiah Fairweather-Nnamdi'))[0]).toMatchObject({ link: 'https://news.example/7' });
        expect((await copy.screening.screen({ name: 'Theodora Blackwood-Eze' })).sanction[0]).toMatchObject({
          listName: 'copied-sanctions',
        });
        await copy.uploads.receive(pending.key, Object.fromEntries(new URL(pending.url).searchParams), [upload], upload.length);
        expect(await copy.audit.publicKey()).toEqual(auditKey);
        // Signing on the copy records no new key: the log's one key signs on.
        await copy.audit.treeHead();
        expect(await copy.audit.keys()).toHaveLength(1);
      } finally {
        await copy.close();
      }
    } finally {
      await database.drop();
      nodeDir.remove();
      rmSync(t.dir, { recursive: true, force: true });
    }
  }, 240_000);
});
