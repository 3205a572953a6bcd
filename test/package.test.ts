// The package as another project gets it: npm pack (which builds dist/ at pack time) in a copy of the sources,
// npm install of the tarball into a temporary project, then an import that decides one transaction in-process,
// the embedding example run against the installed package, its types checked, the `compliance` bin, and every
// JavaScript block of README.md and docs/ (test/support/doc-blocks.ts).
// The registry is not reachable from CI or this machine, so the package's dependencies are linked from this
// checkout's node_modules before the install; npm keeps them and installs the tarball itself.
// Packing compiles the whole source tree (11 s of tsc CPU, more for npm), so the tarball is kept under node_modules/.cache,
// keyed by every byte packed or built from, the lockfile and the Node version: a run whose sources are those of
// the last pack installs the very tarball npm packed then.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { compareAnswer, kindOf, pageBlocks } from './support/doc-blocks.js';
import { tempDir } from './helpers.js';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const tsx = require.resolve('tsx/cli');
const tsc = join(dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');
const manifest = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };

let dir: ReturnType<typeof tempDir>;
let project: string;
let tarball: string;
/** The tarball's paths, as npm pack lists them. */
let files: string[] = [];
const env = { ...process.env, LOG_LEVEL: 'silent', npm_config_update_notifier: 'false' };

/** What npm pack reads in a copy of the sources: the parsers generated from grammar/ are built again there. */
const PACKED = ['package.json', 'tsconfig.json', 'README.md', 'bin', 'grammar', 'rules', 'src'];
const packedSource = (path: string) => !path.endsWith('.generated.ts');
const packCache = join(repo, 'node_modules', '.cache', 'compliance-engine', 'package');

/**
 * A digest of every file packed or built from, with the Node version and the lockfile (the versions of the tools
 * that build, and of the packages the bundled CLI takes in).
 */
function sourceDigest(): string {
  const hash = createHash('sha256');
  const add = (part: string | Buffer) => hash.update(part).update('\0');
  add(process.version);
  add(readFileSync(join(repo, 'package-lock.json')));
  for (const entry of PACKED) {
    const paths = statSync(join(repo, entry)).isDirectory()
      ? readdirSync(join(repo, entry), { recursive: true, encoding: 'utf8' }).map((p) => join(entry, p))
      : [entry];
    for (const path of paths.sort()) {
      if (!packedSource(path) || statSync(join(repo, path)).isDirectory()) continue;
      add(path);
      add(readFileSync(join(repo, path)));
    }
  }
  return hash.digest('hex');
}

/** npm pack in a copy of the sources, or the tarball it made from the same sources before; with its file list. */
async function pack(into: string): Promise<{ tarball: string; files: string[] }> {
  const digest = sourceDigest();
  const cached = { tarball: join(packCache, `${digest}.tgz`), files: join(packCache, `${digest}.json`) };
  if (existsSync(cached.tarball) && existsSync(cached.files)) {
    const { filename, files } = JSON.parse(readFileSync(cached.files, 'utf8')) as { filename: string; files: string[] };
    cpSync(cached.tarball, join(into, filename));
    return { tarball: join(into, filename), files };
  }
  const source = join(into, 'source');
  for (const entry of PACKED) cpSync(join(repo, entry), join(source, entry), { recursive: true, filter: packedSource });
  symlinkSync(join(repo, 'node_modules'), join(source, 'node_modules'), 'dir');
  const packed = await run('npm', ['pack', '--json', '--pack-destination', into], { cwd: source, env });
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  const result = { tarball: join(into, info!.filename), files: info!.files.map((f) => f.path) };
  // One tarball kept, the last sources packed; each file written whole under its name (another run may read it).
  mkdirSync(packCache, { recursive: true });
  for (const name of readdirSync(packCache)) if (!name.startsWith(digest)) rmSync(join(packCache, name), { force: true });
  const keep = (path: string, write: (temporary: string) => void) => {
    write(`${path}.${process.pid}`);
    renameSync(`${path}.${process.pid}`, path);
  };
  keep(cached.tarball, (temporary) => cpSync(result.tarball, temporary));
  keep(cached.files, (temporary) => writeFileSync(temporary, JSON.stringify({ filename: info!.filename, files: result.files })));
  return result;
}

/**
 * The screening lists as the first engine of the installed package parsed and indexed them, from the package's
 * data with no cache (the test that decides in-process); the later engines' data folders start with a copy, so
 * that each does not build them again (src/name-matching/derived-cache.ts keys the files by the code that built them).
 */
const listsCache = () => join(dir.path, 'lists-cache');
function withListsCache(dataDir: string): string {
  mkdirSync(join(dataDir, 'cache'), { recursive: true, mode: 0o700 });
  if (existsSync(listsCache())) cpSync(listsCache(), join(dataDir, 'cache'), { recursive: true });
  return dataDir;
}

beforeAll(async () => {
  dir = tempDir('ce-package-');
  ({ tarball, files } = await pack(dir.path));

  project = join(dir.path, 'switch');
  mkdirSync(join(project, 'node_modules'), { recursive: true });
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'switch', private: true, type: 'module' }));
  for (const name of Object.keys(manifest.dependencies)) {
    mkdirSync(dirname(join(project, 'node_modules', name)), { recursive: true });
    symlinkSync(join(repo, 'node_modules', name), join(project, 'node_modules', name), 'dir');
  }
  await run('npm', ['install', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', tarball], { cwd: project, env });
}, 900_000);
afterAll(() => dir?.remove());

it('packs the compiled engine, its types, the bundled rules, list data and goAML schema, the bin and the README, and no TypeScript sources', () => {
  for (const path of [
    'dist/src/index.js',
    'dist/src/index.d.ts',
    'dist/src/cli.js',
    'dist/src/rules/grammar/rules.generated.js',
    'dist/src/store/writer-thread.js',
    'dist/cli/cli.js',
    'dist/cli/keys.js',
    'rules/decide.rules',
    'src/reports/goaml/goAMLSchema-5.0.2.xsd',
    'src/reports/goaml/README.md',
    'src/reports/fiu/nfiu.json',
    'bin/compliance.js',
    'bin/sources.js',
    'README.md',
    'package.json',
  ])
    expect(files, path).toContain(path);
  expect(files.some((f) => f.startsWith('src/name-matching/data/reference/'))).toBe(true);
  expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
  expect(files.some((f) => f.startsWith('test/') || f.endsWith('.map') || f === 'bin/bundle.mjs')).toBe(false);
});

it('imports createEngine from the installed package and decides a transaction in-process, with no TypeScript loader', async () => {
  writeFileSync(
    join(project, 'decide.mjs'),
    `import { createEngine } from 'compliance-engine';
const engine = await createEngine({ dataDir: ':memory:', tailIntervalMs: 0, watchRules: false, screeningCacheDir: process.env.LISTS_CACHE });
const decision = await engine.decide({
  transactionData: { reference: 'PKG-1', amount: 25000, currency: 'NGN', senderAccount: '0123456789' },
  anonymizedUserData: { uniqueId: 'user-42', isIdentityVerified: true },
});
process.stdout.write(JSON.stringify(decision));
await engine.close();
`,
  );
  const { stdout } = await run(process.execPath, ['decide.mjs'], { cwd: project, env: { ...env, LISTS_CACHE: listsCache() } });
  const decision = JSON.parse(stdout);
  expect(decision.transactionId).toEqual(expect.any(String));
  expect(decision.action).toEqual({ result: 'approved', code: 1 });
  expect(decision.reason.code).toEqual(expect.any(String));
}, 300_000);

it("runs examples/embed.ts against the installed package, and type-checks it with the package's types", async () => {
  cpSync(join(repo, 'examples', 'embed.ts'), join(project, 'embed.ts'));
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        typeRoots: [join(repo, 'node_modules', '@types')],
        types: ['node'],
      },
      files: ['embed.ts'],
    }),
  );
  await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project, env });
  const { stdout } = await run(process.execPath, [tsx, 'embed.ts'], {
    cwd: project,
    env: { ...env, COMPLIANCE_DATA_DIR: withListsCache(join(dir.path, 'embed-data')) },
  });
  const lines = stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  expect(lines).toHaveLength(3);
  expect(lines[0]).toMatchObject({ outcome: 'pay' });
  expect(lines[1]).toMatchObject({ outcome: 'decline' });
  expect(lines[1].fired.length).toBeGreaterThan(0);
  expect(lines[2]).toEqual({ reference: lines[0].reference, outcome: 'pay', retry: true });
}, 300_000);

it('installs the compliance bin, which prints bare JSON on stdout from the bundled CLI and runs engine commands compiled', async () => {
  const bin = join(project, 'node_modules', '.bin', 'compliance');
  expect(existsSync(bin)).toBe(true);
  const cliEnv = { ...env, DATA_DIR: join(dir.path, 'cli-data') };
  const created = await run(bin, ['keys', 'create', '--name', 'switch-a'], { cwd: project, env: cliEnv });
  expect(created.stderr).toBe('');
  const key = JSON.parse(created.stdout);
  expect(Object.keys(key)).toEqual(['apiKey', 'apiSecret', 'webhookSecret', 'businessId']);
  const listed = await run(bin, ['keys', 'list'], { cwd: project, env: cliEnv });
  expect(listed.stderr).toBe('');
  expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ apiKey: key.apiKey, name: 'switch-a', revoked: false })]);
  // An engine command: the bundle's dispatcher imports it from the compiled tree, which reads the bundled rules.
  const checked = await run(bin, ['rules', 'check'], { cwd: project, env: cliEnv });
  expect(checked.stdout).toMatch(/^OK: \d+ rules in \d+ files/);
  const unknown = await run(bin, ['frobnicate'], { cwd: project, env: cliEnv }).catch((e: { code: number; stderr: string }) => e);
  expect(unknown).toMatchObject({ code: 2, stderr: expect.stringContaining('usage: compliance COMMAND') });
}, 300_000);

it('runs every JavaScript block of README.md and docs/ as an ES module against the installed package, printing the documented answer', async () => {
  const modules = pageBlocks(repo).filter((b) => kindOf(b) === 'module' && !b.illustration);
  expect(modules.length).toBeGreaterThan(0);
  const drifts: string[] = [];
  for (const [i, block] of modules.entries()) {
    // Each in a folder of its own inside the project (its node_modules is the installed package's), with LOG_LEVEL
    // unset: the engine's lines must not reach the host's stdout.
    const cwd = join(project, `doc-${i}`);
    // The data folder the blocks name (./data).
    withListsCache(join(cwd, 'data'));
    writeFileSync(join(cwd, 'example.mjs'), block.code);
    const { LOG_LEVEL: _, ...hostEnv } = env;
    const { stdout } = await run(process.execPath, ['example.mjs'], { cwd, env: hostEnv });
    const drift = block.answer ? compareAnswer(block.answer.code, stdout, new Map()) : undefined;
    if (drift) drifts.push(`${block.file}:${block.line}: ${drift}`);
  }
  expect(drifts).toEqual([]);
}, 600_000);
