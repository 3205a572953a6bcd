/** The bundled lists and a matcher over them, built once per test file. */
import { loadEmbeddedLists } from '../../src/name-matching/embedded.js';
import { createMatcher, type Matcher } from '../../src/name-matching/matcher.js';
import type { ScreeningList } from '../../src/name-matching/records.js';

let built: Promise<{ lists: ScreeningList[]; matcher: Matcher }> | undefined;

export function embeddedFixture(): Promise<{ lists: ScreeningList[]; matcher: Matcher }> {
  built ??= loadEmbeddedLists().then((lists) => ({ lists, matcher: createMatcher(lists) }));
  return built;
}

/** Reading the UK list's XLSX and indexing every list takes seconds, and far longer on a loaded machine. */
export const LOAD_TIMEOUT = 300_000;
