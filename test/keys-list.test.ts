import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keysCreate, keysRevoke } from '../src/cli/keys.js';
import { keysList } from '../src/cli/keys-list.js';
import { openLocation } from '../src/store/index.js';
import { BACKENDS, createTestDatabase, skipBackend, type TestDatabase } from './postgres.js';
import { cliDataDir, runCommand } from './support/cli.js';

// `keys list` reads the API-key read model without opening the log (src/cli/context.ts, withReadModel), on both
// backends; when the read model lags the log it opens the log and catches it up first.
for (const backend of BACKENDS)
  describe.skipIf(skipBackend(backend))(`keys list (${backend})`, () => {
    const dir = cliDataDir();
    let database: TestDatabase | undefined;
    const previousUrl = process.env.DATABASE_URL;
    beforeAll(async () => {
      if (backend === '[postgres]') {
        database = await createTestDatabase();
        process.env.DATABASE_URL = database.url;
      }
    });
    afterAll(async () => {
      if (previousUrl === undefined) delete process.env.DATABASE_URL;
      else process.env.DATABASE_URL = previousUrl;
      await database?.drop();
    });

    /** The store the commands use, opened directly. */
    const store = () => openLocation(database?.url ?? `${dir.path}/compliance.db`).db;
    const tableExists = async (name: string) => {
      const db = store();
      try {
        return (await db.introspection.getTables()).some((t) => t.name === name);
      } finally {
        await db.destroy();
      }
    };
    const run = async (command: typeof keysList, ...argv: string[]) => {
      const result = await runCommand(command, argv);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      return JSON.parse(result.stdout);
    };

    it('lists no key before the store exists', async () => {
      expect(await run(keysList)).toEqual([]);
    });

    let first: { apiKey: string; businessId: string };
    let second: { apiKey: string; businessId: string };
    it('lists every key, oldest first, revoked or not, without secrets', async () => {
      first = await run(keysCreate, '--name', 'switch-a');
      second = await run(keysCreate, '--name', 'switch-b', '--business', first.businessId);
      await run(keysRevoke, first.apiKey);
      const listed = await run(keysList);
      expect(listed).toEqual([
        {
          apiKey: first.apiKey,
          name: 'switch-a',
          businessId: first.businessId,
          userId: null,
          revoked: true,
          createdAt: expect.any(String),
        },
        {
          apiKey: second.apiKey,
          name: 'switch-b',
          businessId: first.businessId,
          userId: null,
          revoked: false,
          createdAt: expect.any(String),
        },
      ]);
      expect(JSON.stringify(listed)).not.toMatch(/secret|whsec_/i);
    });

    it('reads the read model without migrating the store: a dropped table of another read model stays dropped', async () => {
      const db = store();
      await db.schema.dropTable('case_summaries').execute();
      await db.destroy();
      expect((await run(keysList)).map((k: { apiKey: string }) => k.apiKey)).toEqual([first.apiKey, second.apiKey]);
      expect(await tableExists('case_summaries')).toBe(false);
      // A command that opens the log migrates it.
      await run(keysCreate, '--name', 'switch-c', '--business', first.businessId);
      expect(await tableExists('case_summaries')).toBe(true);
    });

    it('catches a lagging read model up from the log before listing', async () => {
      const db = store();
      await db.deleteFrom('api_keys').execute();
      await db.updateTable('projection_checkpoints').set({ position: 0 }).where('name', '=', 'api_keys').execute();
      await db.destroy();
      const listed = await run(keysList);
      expect(listed.map((k: { name: string; revoked: boolean }) => [k.name, k.revoked])).toEqual([
        ['switch-a', true],
        ['switch-b', false],
        ['switch-c', false],
      ]);
    });
  });
