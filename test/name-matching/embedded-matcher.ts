/** The bundled lists and a matcher over them, built once per test file. */
import { loadEmbeddedLists } from '../../src/name-matching/embedded.js';
import { indexFor } from '../../src/name-matching/index-snapshot.js';
import { createMatcher, type Matcher } from '../../src/name-matching/matcher.js';
import type { ScreeningList } from '../../src/name-matching/records.js';

let built: Promise<{ lists: ScreeningList[]; matcher: Matcher }> | undefined;

/** The folder the test run keeps the parsed and indexed lists in (test/vitest.config.ts), shared by its processes. */
export const screeningCacheDir = (): string | undefined => process.env.SCREENING_CACHE_DIR || undefined;

export function embeddedFixture(): Promise<{ lists: ScreeningList[]; matcher: Matcher }> {
  built ??= (async () => {
    const lists = await loadEmbeddedLists({ cacheDir: screeningCacheDir() });
    return { lists, matcher: createMatcher(lists, await indexFor(lists, { cacheDir: screeningCacheDir() })) };
  })();
  return built;
}

/** Reading the UK list's XLSX and indexing every list takes seconds, and far longer on a loaded machine. */
export const LOAD_TIMEOUT = 300_000;
