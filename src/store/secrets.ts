import { randomBytes } from 'node:crypto';
import { link, open, readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { writeDurably } from '../durable-file.js';
import { PRIVATE_FILE } from '../file-modes.js';
import { backendOf } from './backend.js';

/** A shared secret as the engine holds it: the one in use, and the one it replaced (still accepted while others catch up). */
export interface SharedSecret {
  value: string;
  previous: string | null;
  /** Where it is kept, for messages: the file, the table row, or memory. */
  source: string;
}

/**
 * Keys every process working one log must hold alike: the upload URL key (a URL one node signs, another checks) and
 * the audit signing key (one key signs every node's tree heads). Generated on first use by whichever process comes
 * first; the others read the same one. On PostgreSQL they are rows of `store_secrets`, a table of the store outside
 * the log (docs/postgres.md says why, who can read it, and how to rotate); on SQLite they stay files in DATA_DIR,
 * 0600, where the processes sharing the file find them; an in-memory engine keeps its own for its lifetime.
 */
export interface Secrets {
  /** The secret `name`, made with `generate` if no process has made it yet. */
  get(name: string, generate: () => string): Promise<SharedSecret>;
  /** Puts `value` in use; the value it replaces becomes `previous`. */
  rotate(name: string, value: string): Promise<SharedSecret>;
}

export function openSecrets(db: Kysely<any>, dataDir: string): Secrets {
  if (backendOf(db) === 'postgres') return new TableSecrets(db);
  return dataDir === ':memory:' ? new MemorySecrets() : new FolderSecrets(dataDir);
}

/** Made with the log's tables, on PostgreSQL only. */
export async function migrateSecrets(db: Kysely<any>): Promise<void> {
  if (backendOf(db) === 'sqlite') return;
  await db.schema
    .createTable('store_secrets')
    .ifNotExists()
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('previous', 'text')
    .execute();
}

/**
 * `store copy`: the secrets `names` kept as files in `dataDir` become rows of the PostgreSQL target's
 * `store_secrets`, so that the nodes there go on with the embedded install's keys (its upload URLs stay valid, its
 * tree heads stay signed by one key). A name the target already holds with another value is an error. Answers
 * the names copied.
 */
export async function copySecrets(dataDir: string, target: Kysely<any>, names: readonly string[]): Promise<string[]> {
  await migrateSecrets(target);
  const files = new FolderSecrets(dataDir);
  const table = new TableSecrets(target);
  const copied: string[] = [];
  for (const name of names) {
    const file = await files.read(name);
    if (!file) continue;
    const row = await table.get(name, () => file.value);
    if (row.value !== file.value) throw new Error(`${row.source} already holds another key than ${file.source}`);
    copied.push(name);
  }
  return copied;
}

interface SecretRow {
  name: string;
  value: string;
  previous: string | null;
}

class TableSecrets implements Secrets {
  readonly #db: Kysely<{ store_secrets: SecretRow }>;
  constructor(db: Kysely<any>) {
    this.#db = db;
  }

  async get(name: string, generate: () => string): Promise<SharedSecret> {
    const found = await this.#read(name);
    if (found) return found;
    // Nodes starting together each offer a value; the primary key keeps the first, and all read it back.
    await this.#db
      .insertInto('store_secrets')
      .values({ name, value: generate(), previous: null })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    return (await this.#read(name))!;
  }

  async rotate(name: string, value: string): Promise<SharedSecret> {
    const row = await this.#db
      .updateTable('store_secrets')
      .set((eb) => ({ previous: eb.ref('value'), value }))
      .where('name', '=', name)
      .returning(['value', 'previous'])
      .executeTakeFirst();
    if (!row) throw new Error(`no secret ${name} to rotate`);
    return { ...row, source: sourceOf(name) };
  }

  async #read(name: string): Promise<SharedSecret | undefined> {
    const row = await this.#db.selectFrom('store_secrets').select(['value', 'previous']).where('name', '=', name).executeTakeFirst();
    return row && { ...row, source: sourceOf(name) };
  }
}

const sourceOf = (name: string) => `store_secrets ${name}`;

class FolderSecrets implements Secrets {
  constructor(private readonly dir: string) {}

  async get(name: string, generate: () => string): Promise<SharedSecret> {
    const found = await this.read(name);
    if (found) return found;
    await this.#create(join(this.dir, name), generate());
    return this.get(name, generate);
  }

  /** The secret's file, if there is one. */
  async read(name: string): Promise<SharedSecret | undefined> {
    const path = join(this.dir, name);
    const found = await stat(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (!found) return undefined;
    if ((found.mode & 0o077) !== 0)
      throw new Error(`${path} may be read by other users (mode ${(found.mode & 0o777).toString(8)}); run chmod 600 on it`);
    return { value: (await readFile(path, 'utf8')).trim(), previous: null, source: path };
  }

  async rotate(name: string, value: string): Promise<SharedSecret> {
    const path = join(this.dir, name);
    await writeDurably(path, value);
    return { value, previous: null, source: path };
  }

  /** Written to a temporary file and hard-linked into place: link fails if another process (the CLI) won the race. */
  async #create(path: string, value: string): Promise<void> {
    const temp = `${path}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
    const file = await open(temp, 'wx', PRIVATE_FILE);
    try {
      await file.writeFile(value);
      await file.sync();
    } finally {
      await file.close();
    }
    try {
      await link(temp, path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      await unlink(temp);
    }
    const dir = await open(this.dir, 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  }
}

class MemorySecrets implements Secrets {
  readonly #values = new Map<string, SharedSecret>();

  async get(name: string, generate: () => string): Promise<SharedSecret> {
    let secret = this.#values.get(name);
    if (!secret) this.#values.set(name, (secret = { value: generate(), previous: null, source: 'memory' }));
    return secret;
  }

  async rotate(name: string, value: string): Promise<SharedSecret> {
    const secret = { value, previous: this.#values.get(name)?.value ?? null, source: 'memory' };
    this.#values.set(name, secret);
    return secret;
  }
}
