import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// This module is src/package-files.ts under tsx and vitest and dist/src/package-files.js once built: the package's
// root is found from here either way, never from the working directory (an installed package runs anywhere).
const root = new URL(import.meta.url.endsWith('.ts') ? '../' : '../../', import.meta.url);

/** The rules, decision lists, CDD workflows and risk models that ship with the package: the default RULES_DIR. */
export const BUNDLED_RULES_DIR = fileURLToPath(new URL('rules', root));

/** The goAML schema the reports are validated against, with its README. */
export const BUNDLED_GOAML_SCHEMA = fileURLToPath(new URL('src/reports/goaml/goAMLSchema-5.0.2.xsd', root));

/** Each FIU's goAML code lists and mappings, one JSON file per FIU (src/reports/fiu/nfiu.json is the default). */
export const BUNDLED_FIU_DIR = fileURLToPath(new URL('src/reports/fiu', root));

/** The package's version, as package.json gives it (the OpenAPI document's version). */
export const PACKAGE_VERSION = (JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { version: string }).version;
