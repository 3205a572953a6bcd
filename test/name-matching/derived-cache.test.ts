/**
 * The parsed lists and the index kept in the cache folder give the very results that parsing and indexing give,
 * and a damaged or foreign file is rebuilt rather than believed.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEmbeddedLists } from '../../src/name-matching/embedded.js';
import { indexFor, restoreIndex, serialiseIndex } from '../../src/name-matching/index-snapshot.js';
import { createMatcher, type Matcher } from '../../src/name-matching/matcher.js';
import { buildNameIndex } from '../../src/name-matching/name-index.js';
import type { ScreeningList } from '../../src/name-matching/records.js';
import { tempDir } from '../helpers.js';
import { LOAD_TIMEOUT } from './embedded-matcher.js';
import { buildVariants } from './variants.js';

const cache = tempDir('ce-screening-cache-');
afterAll(() => cache.remove());

let parsed: ScreeningList[];
let cached: ScreeningList[];
let built: Matcher;
let restored: Matcher;

beforeAll(async () => {
  parsed = await readEmbeddedLists({ cacheDir: cache.path });
  cached = await readEmbeddedLists({ cacheDir: cache.path });
  built = createMatcher(parsed, await indexFor(parsed, { cacheDir: cache.path }));
  restored = createMatcher(cached, await indexFor(cached, { cacheDir: cache.path }));
}, LOAD_TIMEOUT);

const cacheFiles = () => readdirSync(cache.path).filter((n) => !n.endsWith('.tmp'));

describe('derived screening files', () => {
  it('are private files named by kind and key', () => {
    expect(cacheFiles().sort()).toEqual([
      expect.stringMatching(/^index-[0-9a-f]{32}\.bin$/),
      expect.stringMatching(/^lists-[0-9a-f]{32}\.json$/),
    ]);
    expect(statSync(cache.path).mode & 0o777).toBe(0o700);
    for (const name of cacheFiles()) expect(statSync(join(cache.path, name)).mode & 0o777).toBe(0o600);
  });

  it('hold the lists exactly as parsed, field order included', () => {
    expect(cached).not.toBe(parsed);
    expect(JSON.stringify(cached)).toBe(JSON.stringify(parsed));
  });

  it('screen every kind of query as the index built from the sources does', () => {
    const queries = [
      ...buildVariants(
        parsed.filter((l) => l.type === 'sanction'),
        60,
        7,
      ).map((v) => v.query),
      ...parsed.filter((l) => l.type === 'pep').flatMap((l) => l.entries.slice(0, 40).map((e) => e.name)),
      ...readFileSync(new URL('../fixtures/screening/nomenklatura_putin_names.txt', import.meta.url), 'utf8')
        .split('\n')
        .filter((n) => n.trim()),
      'Mohammed Okonkwo',
      'Jane Doe',
    ];
    expect(queries.length).toBeGreaterThan(500);
    for (const name of queries) {
      for (const q of [{ name }, { name, threshold: 60, limit: 50, birthDate: '1952', country: 'ng' }])
        expect(restored.screen(q), name).toEqual(built.screen(q));
      expect(restored.bestScore(name, 'sanction'), name).toBe(built.bestScore(name, 'sanction'));
      expect(restored.bestScore(name, 'pep'), name).toBe(built.bestScore(name, 'pep'));
    }
  });

  it(
    'rebuild an index file that is cut short or was written for other lists',
    async () => {
      const [index] = cacheFiles().filter((n) => n.startsWith('index-'));
      const path = join(cache.path, index!);
      const whole = readFileSync(path);
      writeFileSync(path, whole.subarray(0, whole.length >> 1));
      const again = createMatcher(cached, await indexFor(cached, { cacheDir: cache.path }));
      expect(again.screen({ name: 'Vladimir Putin' })).toEqual(built.screen({ name: 'Vladimir Putin' }));
      expect(readFileSync(path).equals(whole)).toBe(true);

      const small = parsed.slice(4);
      expect(restoreIndex(serialiseIndex(buildNameIndex(small), 'k'), small, 'other key')).toBeUndefined();
      expect(restoreIndex(serialiseIndex(buildNameIndex(small), 'k'), parsed, 'k')).toBeUndefined();
    },
    LOAD_TIMEOUT,
  );

  it(
    're-parse lists whose cached file is unreadable',
    async () => {
      const [lists] = cacheFiles().filter((n) => n.startsWith('lists-'));
      writeFileSync(join(cache.path, lists!), '{"key":');
      const again = await readEmbeddedLists({ cacheDir: cache.path });
      expect(JSON.stringify(again)).toBe(JSON.stringify(parsed));
      expect(JSON.parse(readFileSync(join(cache.path, lists!), 'utf8')).lists).toHaveLength(parsed.length);
    },
    LOAD_TIMEOUT,
  );
});
