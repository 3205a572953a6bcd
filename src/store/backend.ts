import { type Kysely, PostgresAdapter } from 'kysely';

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
