// Runs CLI commands in the test's own process: a temporary data folder as DATA_DIR (the CLI reads its
// configuration from the environment, as the `compliance` bin does) and a command's exit code and output.
import { afterAll, beforeAll } from 'vitest';
import type { Command } from '../../src/cli/context.js';
import { tempDir } from '../helpers.js';

/** A fresh data folder, DATA_DIR for this file's tests; the previous DATA_DIR comes back after them. */
export function cliDataDir(): { readonly path: string } {
  let dir: ReturnType<typeof tempDir> | undefined;
  const previous = process.env.DATA_DIR;
  beforeAll(() => {
    dir = tempDir();
    process.env.DATA_DIR = dir.path;
  });
  afterAll(() => {
    if (previous === undefined) delete process.env.DATA_DIR;
    else process.env.DATA_DIR = previous;
    dir?.remove();
  });
  return {
    get path() {
      if (!dir) throw new Error('the CLI data folder exists from beforeAll on');
      return dir.path;
    },
  };
}

/** What a command printed on stdout and stderr (lines joined), and its exit code. */
export async function runCommand(command: Command, argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await command(argv, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}
