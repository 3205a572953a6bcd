// A thread started from the sources runs its entry's bundle (bin/bundle.mjs, dist/threads/) while that is newer
// than every source, and the sources through tsx once one is edited or the bundle is gone. On a copy of the
// sources (without the list data) bundled afresh, with a probe thread that says which file it runs from.
import { execFile } from 'node:child_process';
import { cpSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tempDir } from './helpers.js';

const repo = fileURLToPath(new URL('..', import.meta.url));
let dir: ReturnType<typeof tempDir>;
let root: string;
let probe: () => Promise<string>;

beforeAll(async () => {
  dir = tempDir('ce-threads-');
  root = dir.path;
  for (const entry of ['package.json', 'tsconfig.json', 'bin', 'grammar', 'src']) {
    cpSync(join(repo, entry), join(root, entry), { recursive: true, filter: (path) => !path.endsWith('/name-matching/data') });
  }
  symlinkSync(join(repo, 'node_modules'), join(root, 'node_modules'), 'dir');
  writeFileSync(
    join(root, 'src', 'probe.ts'),
    `import { startThread, threadEntry } from './threads.js';
export const probe = (): Promise<string> =>
  new Promise((resolve, reject) => startThread(threadEntry(import.meta.url, 'probe-thread'), () => ({})).once('message', resolve).once('error', reject));
`,
  );
  // The file the thread's code runs from, as its stack names it.
  writeFileSync(
    join(root, 'src', 'probe-thread.ts'),
    `import { parentPort } from 'node:worker_threads';\nparentPort!.postMessage(new Error().stack);\n`,
  );
  await promisify(execFile)(process.execPath, [join(root, 'bin', 'bundle.mjs')]);
  ({ probe } = await import(join(root, 'src', 'probe.ts')));
}, 120_000);
afterAll(() => dir?.remove());

it('runs the bundle while it is newer than every source', async () => {
  expect(await probe()).toContain(join(root, 'dist', 'threads', 'probe-thread.js'));
});

it('runs the sources through tsx once a source is newer than the bundle, and the bundle again once rebuilt', async () => {
  const edited = new Date(Date.now() + 60_000);
  utimesSync(join(root, 'src', 'cases', 'service.ts'), edited, edited);
  expect(await probe()).toContain(join(root, 'src', 'probe-thread.ts'));
  const rebuilt = new Date(Date.now() + 120_000);
  utimesSync(join(root, 'dist', 'threads', 'probe-thread.js'), rebuilt, rebuilt);
  expect(await probe()).toContain(join(root, 'dist', 'threads', 'probe-thread.js'));
});

it('finds no current bundle once a grammar is newer than it, or when it is missing', async () => {
  const { threadBundle } = await import(join(root, 'src', 'threads.ts'));
  const entry = pathToFileURL(join(root, 'src', 'probe-thread.ts')).href;
  const rootUrl = pathToFileURL(`${root}/`);
  expect(threadBundle(entry, rootUrl)).toBe(pathToFileURL(join(root, 'dist', 'threads', 'probe-thread.js')).href);
  const edited = new Date(Date.now() + 180_000);
  utimesSync(join(root, 'grammar', 'rules.ne'), edited, edited);
  expect(threadBundle(entry, rootUrl)).toBeUndefined();
  rmSync(join(root, 'dist', 'threads'), { recursive: true });
  expect(threadBundle(entry, rootUrl)).toBeUndefined();
});
