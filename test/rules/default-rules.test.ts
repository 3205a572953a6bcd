import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRuleset, RuleTestFileSchema, type CompiledRuleset } from '../../src/rules/index.js';
import { runRuleTestsInDir } from '../../src/rules/cli.js';

const DIR = join(import.meta.dirname, '..', '..', 'rules');

describe('the default ruleset', async () => {
  const ruleset: CompiledRuleset = await loadRuleset(DIR);

  it('has at least 30 rules with unique reason codes', () => {
    expect(ruleset.rules.length).toBeGreaterThanOrEqual(30);
    const codes = ruleset.rules.map((r) => r.reason.code);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it('passes every example in the rule test files', async () => {
    const failures = (await runRuleTestsInDir(DIR, ruleset)).filter((r) => r.failures.length > 0);
    expect(failures).toEqual([]);
  });

  it('has, for every rule, a test that fires it and one that does not', async () => {
    const fires = new Set<string>();
    const notFires = new Set<string>();
    for (const name of (await readdir(DIR)).filter((n) => n.endsWith('.test.json'))) {
      const file = RuleTestFileSchema.parse(JSON.parse(await readFile(join(DIR, name), 'utf8')));
      for (const c of file.cases) {
        for (const id of c.fires ?? []) fires.add(id);
        for (const id of c.notFires ?? []) notFires.add(id);
      }
    }
    const ids = ruleset.rules.map((r) => r.id);
    expect(ids.filter((id) => !fires.has(id))).toEqual([]);
    expect(ids.filter((id) => !notFires.has(id))).toEqual([]);
  });
});
