// Precompiles every grammar/*.ne with nearleyc into src/rules/grammar/, so that nearley never compiles at run time.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', 'src', 'rules', 'grammar');
mkdirSync(out, { recursive: true });
const nearleyc = join(here, '..', 'node_modules', 'nearley', 'bin', 'nearleyc.js');
for (const file of readdirSync(here).filter((f) => f.endsWith('.ne'))) {
  const target = join(out, `${basename(file, '.ne')}.generated.ts`);
  execFileSync(process.execPath, [nearleyc, join(here, file), '-o', target], { stdio: 'inherit' });
}
