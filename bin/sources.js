// When the sources last changed, for the `compliance` bin (is the bundle current?) and bin/bundle.mjs (is tsc's
// output current?).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The newest modification time of the TypeScript sources and the grammars, or 0 in an installed package, which
 * ships no sources. The parsers generated from grammar/*.ne are left out (their grammar counts): `npm ci` and the
 * first `npx compliance` in a clone run `prepare`, which writes them again, unchanged.
 */
export function newestSource(root) {
  const src = join(root, 'src');
  if (!existsSync(join(src, 'cli.ts'))) return 0;
  let newest = 0;
  for (const [dir, suffix] of [
    [src, '.ts'],
    [join(root, 'grammar'), '.ne'],
  ]) {
    for (const name of readdirSync(dir, { recursive: true })) {
      if (name.endsWith(suffix) && !name.endsWith('.generated.ts')) newest = Math.max(newest, statSync(join(dir, name)).mtimeMs);
    }
  }
  return newest;
}
