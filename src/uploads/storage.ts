import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import { ConflictError, ForbiddenError, PayloadTooLargeError } from '../errors.js';
import { PRIVATE_DIR, PRIVATE_FILE } from '../file-modes.js';
import { type FileStore, isUniqueViolation, migrateFileTable, openFileStore } from '../store/index.js';

/** Where uploaded bytes live on PostgreSQL, so that every node serves what any node received (docs/postgres.md). */
const FILE_TABLE = 'upload_files';

export const migrateUploadFiles = (db: Kysely<any>): Promise<void> => migrateFileTable(db, FILE_TABLE);

/**
 * Bytes of uploaded objects. A body is received into a local temporary file (hashed, its size limit enforced as it
 * streams), fsynced, then handed whole to the file store: the data folder's uploads/ on SQLite, a table on
 * PostgreSQL. An object appears whole or not at all.
 */
export class UploadStorage {
  readonly #dataDir: string;
  readonly #files: FileStore;
  #root: string | undefined;

  constructor(db: Kysely<any>, dataDir: string) {
    this.#dataDir = dataDir;
    this.#files = openFileStore(db, { table: FILE_TABLE, pathOf: (key) => this.pathOf(key) });
  }

  /** Made on first use, so an engine that never stores a file leaves no folder (an in-memory one uses a temp dir). */
  get root(): string {
    if (!this.#root) {
      const root = resolve(this.#dataDir === ':memory:' ? mkdtempSync(join(tmpdir(), 'ce-uploads-')) : join(this.#dataDir, 'uploads'));
      mkdirSync(join(root, '.incoming'), { recursive: true, mode: PRIVATE_DIR });
      this.#root = root;
    }
    return this.#root;
  }

  get #temp(): string {
    return join(this.root, '.incoming');
  }

  /** Defence in depth behind the key pattern: whatever a key says, its path stays inside the root. */
  pathOf(key: string): string {
    const path = resolve(this.root, key);
    if (!path.startsWith(this.root + sep) || path.startsWith(this.#temp + sep))
      throw new ForbiddenError('upload key is outside the storage');
    return path;
  }

  /** Receives a body, hashing as it goes; more than `maxBytes` aborts the write and leaves nothing behind. */
  async write(
    key: string,
    body: AsyncIterable<Uint8Array> | Iterable<Uint8Array> | null,
    maxBytes: number,
  ): Promise<{ size: number; sha256: string }> {
    this.pathOf(key);
    const temp = join(this.#temp, `${randomBytes(8).toString('hex')}.part`);
    const hash = createHash('sha256');
    let size = 0;
    const handle = await open(temp, 'wx', PRIVATE_FILE);
    try {
      for await (const chunk of body ?? []) {
        size += chunk.byteLength;
        if (size > maxBytes) throw new PayloadTooLargeError(`upload is larger than its limit of ${maxBytes} bytes`);
        hash.update(chunk);
        await handle.write(chunk);
      }
      await handle.sync();
    } catch (error) {
      await handle.close();
      await rm(temp, { force: true });
      throw error;
    }
    await handle.close();
    try {
      await this.#files.adopt(key, temp);
    } catch (error) {
      await rm(temp, { force: true });
      // Another node took a PUT of this key at the same moment and stored its bytes first.
      if (isUniqueViolation(error)) throw new ConflictError(`upload ${key} was already received`);
      throw error;
    }
    return { size, sha256: hash.digest('hex') };
  }

  read(key: string): Promise<Readable> {
    return this.#files.read(key);
  }
}
