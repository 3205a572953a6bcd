import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type TransferListItem, Worker } from 'node:worker_threads';

/** The URL of a thread's entry module beside `base` (an import.meta.url): .ts under tsx and vitest, .js once built. */
export function threadEntry(base: string, name: string): string {
  return new URL(`./${name}${base.endsWith('.ts') ? '.ts' : '.js'}`, base).href;
}

/** When the sources last changed (bin/sources.js); only the sources need it, and a built tree has no bin/ beside it. */
const sources: { newestSource(root: string): number } | undefined = import.meta.url.endsWith('.ts')
  ? await import(new URL('../bin/sources.js', import.meta.url).href)
  : undefined;

/**
 * The URL of a source module's bundled counterpart in `root`'s dist/threads/ (bin/bundle.mjs, which `npm ci`
 * runs), or undefined when that is missing or older than any source (code being edited never runs as a stale
 * bundle), or the module is not one of src/.
 */
export function threadBundle(module: string, root: URL): string | undefined {
  if (!sources || !module.startsWith(new URL('src/', root).href)) return undefined;
  const bundled = new URL(`dist/threads/${basename(fileURLToPath(module), '.ts')}.js`, root);
  try {
    return statSync(bundled).mtimeMs >= sources.newestSource(fileURLToPath(root)) ? bundled.href : undefined;
  } catch {
    return undefined;
  }
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

/**
 * Starts a worker thread running the module at `entry` (see threadEntry), with the workerData `data` returns.
 * From the sources the thread loads the entry's bundle when that is current (registering tsx in a thread costs
 * about half a second of CPU, which every engine start would pay), else the sources through tsx. `data` is
 * given `module`, which gives the URL to pass for a further module the thread imports: its bundle when the entry
 * runs bundled. A further module without one (a test's) has the thread run the sources.
 */
export function startThread(
  entry: string,
  data: (module: (url: string) => string) => unknown,
  /** What workerData hands over rather than copies (a MessagePort). */
  transferList?: TransferListItem[],
): Worker {
  const root = new URL('../', import.meta.url);
  const bundled = entry.endsWith('.ts') ? threadBundle(entry, root) : undefined;
  if (bundled) {
    let complete = true;
    const workerData = data((url) => {
      const module = threadBundle(url, root);
      if (!module) complete = false;
      return module ?? url;
    });
    if (complete) return new Worker(bootstrap(bundled), { eval: true, workerData, transferList });
  }
  return new Worker(bootstrap(entry), { eval: true, workerData: data((url) => url), transferList });
}
