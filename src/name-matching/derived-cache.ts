/**
 * Files derived from the screening lists (the parsed bundled lists, a built index), kept so that a start does not
 * parse the UK XLSX and index sixty thousand names again. A file is named by a key: the SHA-256 of what it is
 * derived from and of the code that derived it (every module of this folder, the reference tables and the versions
 * of the parsing libraries), so a changed list, parser or normaliser is never answered from an old file. Files are
 * written whole or not at all (writeDurably, 0600); a missing, unreadable or foreign file is rebuilt.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readdir, readFile, stat, unlink } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { removeStaleTemporaries, writeDurably } from '../durable-file.js';
import { dataPath } from './data-path.js';

/** Libraries whose output ends up in a derived file. */
const LIBRARIES = ['exceljs', 'fast-xml-parser', 'any-ascii', 'double-metaphone'];
/** Files of one kind kept in a cache folder: a test run alternates a few sets of lists. */
const KEEP_PER_KIND = 3;

function codeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((d) => {
      const path = join(dir, d.name);
      if (d.isDirectory()) return d.name === 'data' ? [] : codeFiles(path);
      return /\.(ts|js)$/.test(d.name) && !d.name.endsWith('.d.ts') ? [path] : [];
    })
    .sort();
}

/** A library's version, from the package.json above its entry point (some export no ./package.json). */
function libraryVersion(library: string): string {
  let dir = dirname(createRequire(import.meta.url).resolve(library));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      const { name, version } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version?: string };
      if (name === library) return version ?? '';
    }
    if (dirname(dir) === dir) return '';
    dir = dirname(dir);
  }
}

let fingerprint: string | undefined;

/** SHA-256 of the code that derives the cached files; computed once per process. */
export function codeFingerprint(): string {
  if (fingerprint) return fingerprint;
  const hash = createHash('sha256');
  const root = fileURLToPath(new URL('.', import.meta.url));
  for (const file of codeFiles(root)) hash.update(file.slice(root.length)).update(readFileSync(file));
  const reference = dataPath('reference');
  for (const name of readdirSync(reference).sort()) hash.update(name).update(readFileSync(join(reference, name)));
  for (const library of LIBRARIES) hash.update(`${library}@${libraryVersion(library)}`);
  fingerprint = hash.digest('hex');
  return fingerprint;
}

/** The key of a derived file: the code's fingerprint and the identities (hashes) of its inputs, in order. */
export function derivedKey(inputs: readonly (string | Uint8Array)[]): string {
  const hash = createHash('sha256').update(codeFingerprint());
  for (const input of inputs) hash.update(input).update('\u0000');
  return hash.digest('hex');
}

const fileName = (kind: string, key: string, extension: string) => `${kind}-${key.slice(0, 32)}.${extension}`;

/** The cached file of `kind` for `key`, or undefined when there is none. */
export async function readDerived(dir: string, kind: string, key: string, extension: string): Promise<Buffer | undefined> {
  try {
    return await readFile(join(dir, fileName(kind, key, extension)));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Writes the file of `kind` for `key` and removes the oldest files of that kind beyond a few. */
export async function writeDerived(dir: string, kind: string, key: string, extension: string, content: string | Uint8Array): Promise<void> {
  const path = join(dir, fileName(kind, key, extension));
  await removeStaleTemporaries(path);
  await writeDurably(path, content);
  const pattern = new RegExp(`^${kind}-[0-9a-f]{32}\\.${extension}$`);
  const names = (await readdir(dir)).filter((n) => pattern.test(n));
  if (names.length <= KEEP_PER_KIND) return;
  const dated = await Promise.all(names.map(async (n) => ({ n, at: (await stat(join(dir, n)).catch(() => ({ mtimeMs: 0 }))).mtimeMs })));
  dated.sort((a, b) => b.at - a.at);
  await Promise.all(dated.slice(KEEP_PER_KIND).map(({ n }) => unlink(join(dir, n)).catch(() => undefined)));
}
