// The `rules check` and `rules test` commands, as functions returning their output, so src/cli.ts only
// wires arguments and the process exit code.
import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { CompiledRuleset } from './compiler.js';
import { RuleErrors } from './errors.js';
import { loadRuleset, type RulesetOptions } from './loader.js';
import { RuleTestFileSchema, runTestFile, type RuleTestResult } from './ruletest.js';

export interface CommandResult {
  readonly exitCode: number;
  readonly output: string;
}

async function load(dir: string, options: RulesetOptions): Promise<CompiledRuleset | CommandResult> {
  try {
    return await loadRuleset(dir, options);
  } catch (e) {
    if (e instanceof RuleErrors) return { exitCode: 1, output: `${e.format()}\n` };
    throw e;
  }
}

export async function rulesCheckCommand(dir = 'rules', options: RulesetOptions = {}): Promise<CommandResult> {
  const ruleset = await load(dir, options);
  if ('exitCode' in ruleset) return ruleset;
  return { exitCode: 0, output: `OK: ${ruleset.rules.length} rules in ${ruleset.fileCount} files\n` };
}

/** The file holding the base request of every test case. */
export const TEST_BASE = 'test-base.json';

export async function runRuleTestsInDir(dir: string, ruleset: CompiledRuleset): Promise<RuleTestResult[]> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.test.json')).sort();
  const base = names.length === 0 ? {} : await readFile(join(dir, TEST_BASE), 'utf8').then(JSON.parse, () => ({}));
  const results: RuleTestResult[] = [];
  for (const name of names) {
    const path = join(dir, name);
    results.push(...runTestFile(ruleset, base, path, await readFile(path, 'utf8')));
  }
  return results;
}

/**
 * The rules that lack an example case firing them (`fires`) or one where they do not fire (`notFires`), as
 * rules/README.md asks of every rule; each with what is missing. A test file that does not parse counts for nothing.
 */
export async function ruleCoverage(dir: string, ruleset: CompiledRuleset): Promise<string[]> {
  const fires = new Set<string>();
  const notFires = new Set<string>();
  for (const name of (await readdir(dir)).filter((n) => n.endsWith('.test.json'))) {
    const parsed = RuleTestFileSchema.safeParse(await readFile(join(dir, name), 'utf8').then(JSON.parse, () => undefined));
    for (const c of parsed.success ? parsed.data.cases : []) {
      for (const id of c.fires ?? []) fires.add(id);
      for (const id of c.notFires ?? []) notFires.add(id);
    }
  }
  return ruleset.rules.flatMap((r) => {
    const missing = [
      ...(fires.has(r.id) ? [] : ['an example that fires it (fires)']),
      ...(notFires.has(r.id) ? [] : ['an example where it does not fire (notFires)']),
    ];
    return missing.length === 0 ? [] : [`${r.id} (${basename(r.file)}) lacks ${missing.join(' and ')}`];
  });
}

export async function rulesTestCommand(dir = 'rules', options: RulesetOptions = {}): Promise<CommandResult> {
  const ruleset = await load(dir, options);
  if ('exitCode' in ruleset) return ruleset;
  const results = await runRuleTestsInDir(dir, ruleset);
  const uncovered = await ruleCoverage(dir, ruleset);
  const lines: string[] = [];
  for (const r of results) {
    lines.push(`${r.failures.length === 0 ? '✓' : '✗'} ${basename(r.file)} › ${r.name}`);
    for (const f of r.failures) lines.push(`    ${f}`);
  }
  const failed = results.filter((r) => r.failures.length > 0).length;
  const files = new Set(results.map((r) => r.file)).size;
  lines.push(
    '',
    `Tests: ${failed > 0 ? `${failed} failed, ` : ''}${results.length - failed} passed, ${results.length} total (${files} files)`,
  );
  if (uncovered.length > 0) {
    lines.push('', `Rules without both examples: ${uncovered.length} of ${ruleset.rules.length}`, ...uncovered.map((u) => `✗ ${u}`));
  }
  return { exitCode: failed > 0 || results.length === 0 || uncovered.length > 0 ? 1 : 0, output: `${lines.join('\n')}\n` };
}
