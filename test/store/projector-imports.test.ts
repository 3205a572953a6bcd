import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// Prints every module of src/ that a fresh process loads.
const HOOK = `data:text/javascript,${encodeURIComponent(
  "import { register } from 'node:module'; register('data:text/javascript,' + encodeURIComponent(\"export async function load(url, context, next) { if (url.includes('/src/')) console.error('loaded ' + url.slice(url.indexOf('/src/') + 5)); return next(url, context); }\"));",
)}`;

describe("the writer thread's projector module", () => {
  // Every engine with a writer thread loads it again in that thread: the rules compiler, the name matcher and the
  // screening lists' parsers are the deciding thread's, and loading them there doubled the cost of a start.
  it('loads the read models alone, not the rules, the matcher or the screening catalog', async () => {
    const { stderr } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--import', HOOK, '--input-type=module', '-e', "await import('./src/all-projections.ts')"],
      { cwd: ROOT },
    );
    const loaded = stderr
      .split('\n')
      .filter((l) => l.startsWith('loaded '))
      .map((l) => l.slice('loaded '.length));
    expect(loaded).toContain('all-projections.ts');
    expect(loaded.filter((m) => /^(rules|name-matching)\/|^screening\/catalog|^monitoring\/(state|backtest)\b/.test(m))).toEqual([]);
  }, 60_000);
});
