import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** The URL of a thread's entry module beside `base` (an import.meta.url): .ts under tsx and vitest, .js once built. */
export function threadEntry(base: string, name: string): string {
  return new URL(`./${name}${base.endsWith('.ts') ? '.ts' : '.js'}`, base).href;
}

/**
 * From TypeScript sources (tsx, vitest) the thread needs tsx's loader before it can import the entry. The
 * storage libraries are imported first, by Node's own loader: through tsx's hooks, kysely's few hundred files
 * take half a second to load, which every engine start (and every test that makes one) would pay.
 */
function bootstrap(entry: string): string {
  if (!entry.endsWith('.ts')) return `import(${JSON.stringify(entry)})`;
  const api = new URL('index.mjs', `file://${createRequire(import.meta.url).resolve('tsx/esm/api')}`).href;
  const native = JSON.stringify(['kysely', 'better-sqlite3'].map((name) => import.meta.resolve(name)));
  return `Promise.all(${native}.map((url) => import(url)))
    .then(() => import(${JSON.stringify(api)}))
    .then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`;
}

/** Starts a worker thread running the module at `entry` (see threadEntry) with `workerData`. */
export function startThread(entry: string, workerData: unknown): Worker {
  return new Worker(bootstrap(entry), { eval: true, workerData });
}
