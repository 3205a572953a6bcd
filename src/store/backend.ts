import { CompiledQuery, type Kysely, PostgresAdapter } from 'kysely';

/** Where the log and the read models live: the embedded SQLite file, or a PostgreSQL database shared by nodes. */
export type Backend = 'sqlite' | 'postgres';

export const isPostgresUrl = (location: string): boolean => /^postgres(ql)?:\/\//i.test(location);

/** The backend a Kysely instance (or a transaction or connection of one) runs on. */
export function backendOf(db: Kysely<any>): Backend {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/**
 * The store's hand-compiled statements are written with SQLite's `?` placeholders; PostgreSQL numbers them.
 * The texts hold no string literals, so every `?` is a parameter.
 */
export function placeholdersFor(backend: Backend, text: string): string {
  if (backend === 'sqlite') return text;
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
}

/**
 * A statement compiled once per backend with the query builder, for hot paths where building it on every call
 * costs more than running it. One process may use both backends (replay --verify rebuilds into SQLite).
 */
export function compiledOnce(build: (db: Kysely<any>) => string): (db: Kysely<any>) => string {
  const texts = new Map<Backend, string>();
  return (db) => {
    const backend = backendOf(db);
    let text = texts.get(backend);
    if (text === undefined) texts.set(backend, (text = build(db)));
    return text;
  };
}

const insertTexts = new Map<string, string>();
/** Rows (or ids) one statement carries at most: SQLite binds at most 32,766 parameters to a statement. */
export const ROWS_PER_STATEMENT = 500;

/**
 * Multi-row inserts as plain SQL, one statement per 500 rows: one round trip for a batch's rows instead of one per
 * row (on PostgreSQL each is a write to the server and a wait for its answer), and no query builder, whose cost
 * grows with the rows. `columns` are trusted names; each row holds their values in order.
 */
export function insertRows(backend: Backend, table: string, columns: readonly string[], rows: readonly unknown[][]): CompiledQuery[] {
  const queries: CompiledQuery[] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    const part = rows.slice(i, i + ROWS_PER_STATEMENT);
    const key = `${backend} ${table} ${columns.join(',')} ${part.length}`;
    let text = insertTexts.get(key);
    if (!text) {
      const tuple = `(${columns.map(() => '?').join(', ')})`;
      text = placeholdersFor(
        backend,
        `insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) values ${Array(part.length).fill(tuple).join(', ')}`,
      );
      insertTexts.set(key, text);
    }
    queries.push(CompiledQuery.raw(text, part.flat()));
  }
  return queries;
}

/** Object rows as multi-row inserts (insertRows), their columns those of the first row. */
export async function insertAll<T extends object>(db: Kysely<any>, table: string, rows: readonly T[]): Promise<void> {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]!) as (keyof T & string)[];
  const values = rows.map((row) => columns.map((c) => row[c]));
  for (const insert of insertRows(backendOf(db), table, columns, values)) await db.executeQuery(insert);
}
