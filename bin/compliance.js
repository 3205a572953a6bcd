#!/usr/bin/env node
// The `compliance` command. It runs the compiled CLI (dist/), which starts in a fraction of the time the TypeScript
// loader takes. In a clone that has not been built, or whose sources changed since the build, it runs the sources
// through tsx instead (and says so on stderr, so stdout stays the command's JSON).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const compiled = new URL('../dist/src/cli.js', import.meta.url);
const sources = new URL('../src/', import.meta.url);

/** The newest TypeScript source's modification time; 0 in an installed package, which ships no sources. */
function newestSource() {
  const dir = fileURLToPath(sources);
  if (!existsSync(dir)) return 0;
  let newest = 0;
  for (const name of readdirSync(dir, { recursive: true })) {
    if (name.endsWith('.ts')) newest = Math.max(newest, statSync(`${dir}${name}`).mtimeMs);
  }
  return newest;
}

const built = existsSync(compiled) && statSync(compiled).mtimeMs >= newestSource();
if (built) {
  await import(compiled.href);
} else {
  if (existsSync(compiled)) process.stderr.write('compliance: src/ changed since the last build; running the sources (npm run build makes this fast)\n');
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL('cli.ts', sources).href);
}
