import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import { writeDurably } from '../durable-file.js';
import { PRIVATE_DIR } from '../file-modes.js';
import { backendOf } from './backend.js';
import { isUniqueViolation } from './errors.js';

/** Rows of a file table: one file is its chunks, in order. */
interface FileChunk {
  key: string;
  seq: number;
  bytes: Buffer;
}

/** A file's bytes are stored in rows of this size: no single value grows with the file, and reads stream. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * Files a domain keeps beside the log (uploaded objects, imported screening lists and news feeds). On SQLite they stay in the data folder, where the one
 * process that serves them writes them. On PostgreSQL they go into a table the domain owns, so a file received by
 * one node is read by every other: nodes share no disk.
 */
export interface FileStore {
  /**
   * Takes a complete, fsynced local file into the store under `key`; the local file is gone afterwards. In a table, a
   * key stored already is refused with the database's unique violation (`isUniqueViolation`).
   */
  adopt(key: string, localPath: string): Promise<void>;
  /**
   * Stores `content` under a key that names it (its hash): a key stored already, here or by another node at the same
   * moment, is left as it is. Durable before it resolves.
   */
  put(key: string, content: string | Buffer): Promise<void>;
  /** The file's bytes; an error when nothing is stored under `key`. */
  read(key: string): Promise<Readable>;
}

/** A whole stored file (imported lists and feeds: read at once to be indexed). */
export async function readWhole(files: FileStore, key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await files.read(key)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * The file store of a domain: `table` on PostgreSQL (made by `migrateFileTable`), else the folder paths `pathOf`
 * gives (the domain keeps its keys inside its folder).
 */
export function openFileStore(db: Kysely<any>, options: { table: string; pathOf: (key: string) => string }): FileStore {
  return backendOf(db) === 'postgres' ? new TableFiles(db, options.table) : new FolderFiles(options.pathOf);
}

/** Makes a file table (PostgreSQL only: on SQLite the files stay in the data folder). */
export async function migrateFileTable(db: Kysely<any>, table: string): Promise<void> {
  if (backendOf(db) === 'sqlite') return;
  await db.schema
    .createTable(table)
    .ifNotExists()
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('bytes', 'blob', (c) => c.notNull())
    .addPrimaryKeyConstraint(`${table}_pk`, ['key', 'seq'])
    .execute();
}

class FolderFiles implements FileStore {
  constructor(private readonly pathOf: (key: string) => string) {}

  async adopt(key: string, localPath: string): Promise<void> {
    const target = this.pathOf(key);
    await mkdir(dirname(target), { recursive: true, mode: PRIVATE_DIR });
    await rename(localPath, target);
    // The rename is durable only once the folder's entry is.
    const folder = await open(dirname(target), 'r');
    try {
      await folder.sync();
    } finally {
      await folder.close();
    }
  }

  put(key: string, content: string | Buffer): Promise<void> {
    return writeDurably(this.pathOf(key), content);
  }

  async read(key: string): Promise<Readable> {
    const stream = createReadStream(this.pathOf(key));
    // Fail here, not mid-response, when the file is missing.
    await new Promise<void>((resolve, reject) => stream.once('open', () => resolve()).once('error', reject));
    return stream;
  }
}

class TableFiles implements FileStore {
  readonly #db: Kysely<Record<string, FileChunk>>;
  constructor(
    db: Kysely<any>,
    private readonly table: string,
  ) {
    this.#db = db;
  }

  /** One transaction: a file is stored whole or not at all, and committed (durably) before this resolves. */
  async adopt(key: string, localPath: string): Promise<void> {
    await this.#db.transaction().execute(async (trx) => {
      let seq = 0;
      for await (const chunk of createReadStream(localPath, { highWaterMark: CHUNK_BYTES }))
        await trx
          .insertInto(this.table)
          .values({ key, seq: seq++, bytes: chunk as Buffer })
          .execute();
      if (seq === 0)
        await trx
          .insertInto(this.table)
          .values({ key, seq, bytes: Buffer.alloc(0) })
          .execute();
    });
    await rm(localPath, { force: true });
  }

  async put(key: string, content: string | Buffer): Promise<void> {
    const bytes = typeof content === 'string' ? Buffer.from(content) : content;
    const stored = await this.#db.selectFrom(this.table).select('seq').where('key', '=', key).where('seq', '=', 0).executeTakeFirst();
    if (stored) return;
    try {
      await this.#db.transaction().execute(async (trx) => {
        for (let seq = 0; seq === 0 || seq * CHUNK_BYTES < bytes.length; seq++)
          await trx
            .insertInto(this.table)
            .values({ key, seq, bytes: bytes.subarray(seq * CHUNK_BYTES, (seq + 1) * CHUNK_BYTES) })
            .execute();
      });
    } catch (error) {
      // Another node stored the same content under its key first.
      if (!isUniqueViolation(error)) throw error;
    }
  }

  async read(key: string): Promise<Readable> {
    const chunk = (seq: number) =>
      this.#db.selectFrom(this.table).select('bytes').where('key', '=', key).where('seq', '=', seq).executeTakeFirst();
    const first = await chunk(0);
    if (!first) throw new Error(`no file ${key} in ${this.table}`);
    return Readable.from(
      (async function* () {
        let row: { bytes: Buffer } | undefined = first;
        for (let seq = 1; row; seq++) {
          yield row.bytes;
          row = await chunk(seq);
        }
      })(),
      { objectMode: false },
    );
  }
}
