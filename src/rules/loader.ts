// Reads a rules directory (*.rules and lists/*.txt), checks and compiles it. The version is a content hash
// of every rule and list file, so any edit that can change a decision changes the version.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { RuleFile } from './ast.js';
import { checkRuleset } from './checker.js';
import { compile, type CompiledRuleset } from './compiler.js';
import { RESERVED_KEYS } from '../own-keys.js';
import { RuleErrors, type RuleDiagnostic } from './errors.js';
import { transactionSchema } from './fields.js';
import { parseList } from './file-list.js';
import { listIdentity } from './identity.js';
import { countTokens } from './lexer.js';
import { parseRules } from './parser.js';

/** What one ruleset may hold in all, for the same reason as a file's bound (parser.ts): ~20 times the bundled rules. */
const MAX_RULESET_TOKENS = 50_000;
import type { Schema } from './schema.js';

export interface SourceFile {
  readonly path: string;
  readonly text: string;
}

export interface RuleSources {
  readonly files: readonly SourceFile[];
  /** lists/<name>.txt: one value per line, `#` starts a comment. */
  readonly lists: readonly SourceFile[];
}

export interface RulesetOptions {
  /** Defaults to the transaction schema. */
  readonly schema?: Schema;
}

export function listName(path: string): string {
  return basename(path, '.txt');
}

export function contentVersion(sources: RuleSources): string {
  const hash = createHash('sha256');
  const all = [...sources.files, ...sources.lists].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const f of all) hash.update(`${basename(f.path)}\u0000${f.text}\u0000`);
  return `sha256:${hash.digest('hex').slice(0, 16)}`;
}

/** The checker's errors for candidate sources (file, line, column, message); none when they compile. */
export function candidateErrors(sources: RuleSources): readonly RuleDiagnostic[] {
  try {
    compileSources(sources);
    return [];
  } catch (e) {
    if (e instanceof RuleErrors) return e.errors;
    throw e;
  }
}

/** Parses, checks and compiles in-memory sources; throws RuleErrors listing every problem found. */
export function compileSources(sources: RuleSources, options: RulesetOptions = {}): CompiledRuleset {
  const schema = options.schema ?? transactionSchema;
  const parsed: RuleFile[] = [];
  const syntax: RuleDiagnostic[] = [];
  const tokens = sources.files.reduce((sum, f) => sum + countTokens(f.text, MAX_RULESET_TOKENS), 0);
  if (tokens > MAX_RULESET_TOKENS) {
    const message = `the rules have more than ${MAX_RULESET_TOKENS.toLocaleString('en-US')} tokens in all: keep long value lists in lists/*.txt`;
    throw new RuleErrors([{ file: sources.files[0]!.path, line: 1, col: 1, message }]);
  }
  for (const f of sources.files) {
    try {
      parsed.push(parseRules(f.path, f.text));
    } catch (e) {
      if (!(e instanceof RuleErrors)) throw e;
      syntax.push(...e.errors);
    }
  }
  // Semantic errors in the files that did parse would be noise next to a syntax error (a missing decide
  // section may just be in the broken file), so syntax errors are reported alone.
  if (syntax.length > 0) throw new RuleErrors(syntax);
  const reserved = sources.lists.filter((l) => RESERVED_KEYS.has(listName(l.path)));
  if (reserved.length > 0) {
    const message = `list names ${[...RESERVED_KEYS].join(', ')} are reserved: rename the file`;
    throw new RuleErrors(reserved.map((l) => ({ file: l.path, line: 1, col: 1, message })));
  }
  const fileLists = new Map(sources.lists.map((l) => [listName(l.path), parseList(l.text)]));
  const checked = checkRuleset(parsed, { schema, fileLists: fileLists.keys() });
  const listIdentities = new Map(sources.lists.map((l) => [listName(l.path), listIdentity(l.text)]));
  return compile(checked, { schema, version: contentVersion(sources), fileCount: sources.files.length, fileLists, listIdentities });
}

async function readAll(dir: string, suffix: string): Promise<SourceFile[]> {
  let names: string[];
  try {
    names = (await readdir(dir, { withFileTypes: true })).filter((d) => d.isFile() && d.name.endsWith(suffix)).map((d) => d.name);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  names.sort();
  return Promise.all(names.map(async (n) => ({ path: join(dir, n), text: await readFile(join(dir, n), 'utf8') })));
}

export async function readRuleSources(dir: string): Promise<RuleSources> {
  const [files, lists] = await Promise.all([readAll(dir, '.rules'), readAll(join(dir, 'lists'), '.txt')]);
  if (files.length === 0) throw new RuleErrors([{ file: dir, line: 1, col: 1, message: 'no .rules files in this directory' }]);
  return { files, lists };
}

export async function loadRuleset(dir: string, options: RulesetOptions = {}): Promise<CompiledRuleset> {
  return compileSources(await readRuleSources(dir), options);
}
