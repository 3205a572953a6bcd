import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { systemClock } from '../clock.js';
import { loadConfig } from '../config.js';
import { registerMonitoringUpcasters } from '../monitoring/index.js';
import { createProjector } from '../all-projections.js';
import { compareReadModels, formatVerifyReport } from '../projections/index.js';
import { KEY_FILE } from '../audit/index.js';
import { migrateRegistry, REGISTRY_TABLES } from '../registry/index.js';
import { migrateScreeningFiles } from '../screening/index.js';
import { copyFiles, copyLog, type NamedFile } from '../store/copy.js';
import { copySecrets } from '../store/secrets.js';
import {
  EventStore,
  isPostgresUrl,
  LOG_FILE,
  openDatabase,
  openFileStore,
  openLocation,
  Upcasters,
  withSchemaLock,
} from '../store/index.js';
import { migrateUploadFiles, SIGNING_KEY_FILE } from '../uploads/index.js';
import type { Command } from './context.js';
import { withEngine } from './with-engine.js';

/**
 * The files the log names, kept in DATA_DIR on SQLite and in a table on PostgreSQL: uploaded objects (with the
 * hash their upload recorded), imported screening lists and news feeds (a feed's event records its hash).
 */
const FILE_SETS: { table: string; folder: string; named: Record<string, (data: any) => NamedFile | undefined> }[] = [
  { table: 'upload_files', folder: 'uploads', named: { UploadCompleted: (d) => ({ key: d.key, sha256: d.sha256 }) } },
  {
    table: 'screening_files',
    folder: '.',
    named: {
      ScreeningListImported: (d) => (d.file ? { key: d.file } : undefined),
      AdverseMediaArticlesImported: (d) => ({ key: d.file, sha256: d.contentHash }),
    },
  },
];

/**
 * `store copy --to postgres://…`: moves the SQLite log of DATA_DIR into an empty PostgreSQL database, checking the
 * hash chain on the way, copies the registry's reference data, the files the log names (checking each) and the
 * signing keys' files (into store_secrets), rebuilds every read model there from the copied log, and compares them
 * with the source's row by row. Stop the server first: events appended during the copy stay behind.
 */
export const storeCopy: Command = async (argv, io) => {
  const { values } = parseArgs({ args: argv, options: { to: { type: 'string' } }, strict: true });
  if (!values.to || !isPostgresUrl(values.to)) {
    io.err('store copy: --to must be a postgres:// URL of an empty database');
    return 2;
  }
  const dataDir = loadConfig().dataDir;
  const path = join(dataDir, LOG_FILE);
  if (!existsSync(path)) {
    io.err(`store copy: no SQLite log at ${path} (set DATA_DIR to the folder holding compliance.db)`);
    return 2;
  }
  const source = openDatabase(path, { readonly: true }).db;
  const target = openLocation(values.to, { max: 2 }).db;
  try {
    const copied = await copyLog(source, target, (n) => io.err(`copied ${n} events`));
    io.out(`copied ${copied.events} events; hash chain intact, head ${copied.head}`);
    const registry = createProjector();
    const store = new EventStore(target, systemClock, { upcasters: registerMonitoringUpcasters(new Upcasters()) });
    await withSchemaLock(target, async (conn) => {
      await registry.migrate(conn);
      await migrateRegistry(conn);
      await migrateUploadFiles(conn);
      await migrateScreeningFiles(conn);
      for (const table of REGISTRY_TABLES) {
        const rows = await source.selectFrom(table).selectAll().execute();
        for (let i = 0; i < rows.length; i += 500)
          await conn
            .insertInto(table)
            .values(rows.slice(i, i + 500))
            .onConflict((oc) => oc.doNothing())
            .execute();
      }
      await registry.catchUpAll(conn, store);
    });
    for (const set of FILE_SETS) {
      const named: NamedFile[] = [];
      for await (const event of store.iterateAll({ types: Object.keys(set.named) })) {
        const file = set.named[event.type]!(event.data);
        if (file) named.push(file);
      }
      const from = openFileStore(source, { table: set.table, pathOf: (key) => join(dataDir, set.folder, key) });
      // The target is PostgreSQL: its files are the table's, never paths.
      const into = openFileStore(target, { table: set.table, pathOf: () => '' });
      const files = await copyFiles(from, into, named);
      io.out(`copied ${files.files} files (${files.bytes} bytes) into ${set.table}; each read back and checked`);
    }
    const keys = await copySecrets(dataDir, target, [SIGNING_KEY_FILE, KEY_FILE]);
    io.out(`copied ${keys.length} keys into store_secrets${keys.length > 0 ? ` (${keys.join(', ')})` : ''}`);
    const chain = await store.verifyChain();
    const { tables, diffs } = await compareReadModels(source, target, registry);
    const report = { chain, tables, diffs, ok: chain.ok && diffs.length === 0 };
    io.out(formatVerifyReport(report).replace(/equal the replayed log/, "rebuilt on the target equal the source's"));
    return report.ok ? 0 : 1;
  } catch (error) {
    io.err(`store copy: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await source.destroy();
    await target.destroy();
  }
};

/** `store rotate-upload-key`: a new key for upload URLs, in the file or the row every node reads. */
export const storeRotateUploadKey: Command = async (argv, io) => {
  parseArgs({ args: argv, options: {}, strict: true });
  await withEngine((e) => e.uploads.rotateKey());
  io.out('upload URL key rotated; URLs signed with the previous key verify until they expire (PostgreSQL) or fail (SQLite)');
  return 0;
};
