import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Absolute path of a bundled data file. Resolved from this module, never the cwd. `tsc` does not copy
 * data files into dist/, so a compiled build falls back to the source tree's copy.
 */
export function dataPath(relative: string): string {
  const candidates = [
    new URL(`./data/${relative}`, import.meta.url),
    new URL(`../../../src/name-matching/data/${relative}`, import.meta.url),
  ];
  for (const url of candidates) {
    const path = fileURLToPath(url);
    if (existsSync(path)) return path;
  }
  throw new Error(`screening data file not found: ${relative}`);
}
