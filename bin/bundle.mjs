// Bundles the `compliance` command into dist/cli/ with esbuild, so that a key command starts from a few files
// instead of resolving and loading the several hundred modules of the compiled tree (dist/src/, from tsc).
//
// - Every command module that opens the log alone (all but those importing with-engine.ts) is an entry point,
//   with the dispatcher (src/cli.ts); their shared code is split into chunks. A command that builds the whole
//   engine is not bundled: the dispatcher imports its compiled module from dist/src/cli/, so it and the engine
//   it starts are one copy of the code (their error classes are the same classes). When dist/src/ is missing or
//   older than the sources (`npm ci` runs this bundling alone, not tsc), such a command runs its sources
//   through tsx instead.
// - The packages the sources import are marked free of side effects, so that a command whose code never calls
//   the spreadsheet, CSV or XML parsers does not load them. No source imports a package for its side
//   effects alone (an import with no bindings), which this would drop.
// - import.meta.url in a source module is replaced by the URL of its compiled module in dist/src/: the paths
//   a module finds from there (the bundled rules, the list data, thread entries) are those of the compiled tree.
// - better-sqlite3 is native, and stays a package; so are the optional pg-native and the WebAssembly validator.
//
// It also bundles each worker thread's entry module (every `threadEntry(import.meta.url, name)` in the sources:
// the store's writer, the projections it builds, the snapshot and backtest threads) into dist/threads/, for threads
// started from the sources (tsx, vitest): src/threads.ts starts one from its bundle while that is newer than every
// source, which spares each thread registering tsx and loading a few hundred modules through it. There
// import.meta.url is replaced by the URL of the source module: the bundle behaves as the sources do.
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { newestSource } from './sources.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const outdir = join(root, 'dist', 'cli');
const threadsOutdir = join(root, 'dist', 'threads');
const commandsDir = join(src, 'cli');

/** The command modules the dispatcher (src/cli/commands.ts) imports, and those of them that start the engine. */
const dispatcher = readFileSync(join(commandsDir, 'commands.ts'), 'utf8');
const commandModules = [...new Set([...dispatcher.matchAll(/import\('\.\/([\w-]+)\.js'\)/g)].map((m) => `${m[1]}.ts`))];
const heavy = new Set(commandModules.filter((f) => readFileSync(join(commandsDir, f), 'utf8').includes("from './with-engine.js'")));
const light = commandModules.filter((f) => !heavy.has(f));

/** The URL a source module has once compiled, relative to a file in dist/cli/. */
const compiledUrl = (path) => `../src/${relative(src, path).replace(/\.ts$/, '.js')}`;
/** The URL of a source module, relative to a file in dist/threads/. */
const sourceUrl = (path) => `../../src/${relative(src, path)}`;

/** The thread entry modules: `threadEntry(import.meta.url, 'name')` in a source names name.ts beside it. */
const threadEntries = [];
for (const file of readdirSync(src, { recursive: true })) {
  if (!file.endsWith('.ts')) continue;
  const code = readFileSync(join(src, file), 'utf8');
  for (const m of code.matchAll(/threadEntry\(import\.meta\.url, '([\w-]+)'\)/g)) threadEntries.push(join(src, dirname(file), `${m[1]}.ts`));
}

/** Whether tsc's output in dist/src/ is at least as new as every source. */
const compiledCli = join(root, 'dist', 'src', 'cli.js');
const compiled = existsSync(compiledCli) && statSync(compiledCli).mtimeMs >= newestSource(root);

/** An engine command's module: its compiled module, or its sources through tsx when dist/src/ is not current. */
function engineCommand(file) {
  if (compiled) return `export * from ${JSON.stringify(compiledUrl(join(commandsDir, file)))};`;
  const names = [...readFileSync(join(commandsDir, file), 'utf8').matchAll(/^export const (\w+)/gm)].map((m) => m[1]);
  const source = `../../src/cli/${file}`;
  return `const { register } = await import('tsx/esm/api');
register();
const sources = ${JSON.stringify(source)};
export const { ${names.join(', ')} } = await import(new URL(sources, import.meta.url).href);`;
}

/** Resolves and loads the sources, with import.meta.url in a source module replaced by `moduleUrl(path)`. */
const sourcesPlugin = (moduleUrl) => ({
  name: 'compliance-sources',
  setup(b) {
    // The engine's commands: their compiled modules, loaded when one runs.
    b.onResolve({ filter: /^\.\/[\w-]+\.js$/ }, (args) => {
      if (args.kind !== 'dynamic-import' || args.importer !== join(commandsDir, 'commands.ts')) return undefined;
      const file = args.path.slice(2).replace(/\.js$/, '.ts');
      return heavy.has(file) ? { path: file, namespace: 'engine-command' } : undefined;
    });
    b.onLoad({ filter: /.*/, namespace: 'engine-command' }, (args) => ({ contents: engineCommand(args.path), loader: 'js' }));
    b.onResolve({ filter: /.*/, namespace: 'engine-command' }, (args) => ({ path: args.path, external: true }));
    // A package imported from the sources is kept only where its bindings are used.
    b.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === 'resolving' || !args.importer.startsWith(src) || args.path.startsWith('node:')) return undefined;
      const resolved = await b.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: 'resolving',
      });
      if (resolved.errors.length > 0 || resolved.external) return resolved.external ? { path: args.path, external: true } : undefined;
      return { path: resolved.path, sideEffects: false };
    });
    b.onLoad({ filter: /\.ts$/ }, (args) => {
      if (!args.path.startsWith(src)) return undefined;
      const code = readFileSync(args.path, 'utf8').replaceAll(
        'import.meta.url',
        `new URL(${JSON.stringify(moduleUrl(args.path))}, import.meta.url).href`,
      );
      return { contents: code, loader: 'ts' };
    });
  },
});

const common = {
  entryNames: '[name]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['better-sqlite3', 'pg-native', 'xmllint-wasm'],
  // The CommonJS packages in the bundle call require() for Node's own modules.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  logLevel: 'warning',
};
rmSync(outdir, { recursive: true, force: true });
await build({
  ...common,
  entryPoints: [join(src, 'cli.ts'), ...light.map((f) => join(commandsDir, f))],
  outdir,
  plugins: [sourcesPlugin(compiledUrl)],
});
// Flat, as src/threads.ts finds a bundle by its entry's file name.
if (new Set(threadEntries.map((path) => basename(path))).size !== threadEntries.length) throw new Error('two thread entries share a name');
rmSync(threadsOutdir, { recursive: true, force: true });
await build({ ...common, entryPoints: threadEntries, outdir: threadsOutdir, plugins: [sourcesPlugin(sourceUrl)] });
