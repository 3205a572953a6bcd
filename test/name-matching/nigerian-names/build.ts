/**
 * Writes names.csv, the common Nigerian names (../nigerian-names.ts), from the name parts and the bundled lists.
 * Run: npx tsx test/name-matching/nigerian-names/build.ts
 */
import { writeFileSync } from 'node:fs';
import { loadEmbeddedLists } from '../../../src/name-matching/embedded.js';
import { buildNigerianNames, NIGERIAN_NAMES_FILE } from '../nigerian-names.js';

const { names, listed } = buildNigerianNames(await loadEmbeddedLists());
writeFileSync(NIGERIAN_NAMES_FILE, `name\n${names.join('\n')}\n`);
console.log(`${names.length} names written; ${listed.length} drawn names left out as listed: ${listed.join(', ')}`);
