#!/usr/bin/env node
// The `compliance` command. It runs the bundled CLI (dist/cli/, see bin/bundle.mjs), which starts in a fraction of
// the time the TypeScript loader or the compiled tree take. In a clone that has not been built, or whose sources
// changed since the build, it runs the sources through tsx instead (and says so on stderr, so stdout stays the
// command's JSON).
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { newestSource } from './sources.js';

const bundled = new URL('../dist/cli/cli.js', import.meta.url);
const built = existsSync(bundled) && statSync(bundled).mtimeMs >= newestSource(fileURLToPath(new URL('..', import.meta.url)));
if (built) {
  await import(bundled.href);
} else {
  if (existsSync(bundled)) {
    process.stderr.write('compliance: src/ changed since the last build; running the sources (npm run build makes this fast)\n');
  }
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL('../src/cli.ts', import.meta.url).href);
}
