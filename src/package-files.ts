import { fileURLToPath } from 'node:url';

// This module is src/package-files.ts under tsx and vitest and dist/src/package-files.js once built: the package's
// root is found from here either way, never from the working directory (an installed package runs anywhere).
const root = new URL(import.meta.url.endsWith('.ts') ? '../' : '../../', import.meta.url);

/** The rules, decision lists, CDD workflows and risk models that ship with the package: the default RULES_DIR. */
export const BUNDLED_RULES_DIR = fileURLToPath(new URL('rules', root));
