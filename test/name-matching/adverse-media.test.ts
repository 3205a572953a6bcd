import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseArticlesCsv, parseArticlesJsonl } from '../../src/name-matching/adverse-media/articles.js';
import { importArticles } from '../../src/name-matching/adverse-media/store.js';
import { searchAdverseMedia } from '../../src/name-matching/adverse-media/search.js';
import { seedWikinews, WIKINEWS_ATTRIBUTION } from '../../src/name-matching/adverse-media/wikinews.js';

let db: Database.Database;
beforeEach(() => {
  db = new Database(':memory:');
});
afterEach(() => db.close());

const article = (link: string, title: string, text: string) =>
  JSON.stringify({ link, title, text, published_at: '2024-01-02', origin: 'Test Wire' });

describe('article import', () => {
  it('imports CSV (multi-line text, doubled quotes) and is a no-op when re-imported unchanged', () => {
    const csv = 'url,date,title,text\n"https://news.example//a",2024-01-01,"Title ""A""","Line one.\n\nLine two."\n';
    const articles = parseArticlesCsv(csv, { attribution: 'Example' });
    expect(articles[0]).toEqual({
      link: 'https://news.example/a',
      title: 'Title "A"',
      origin: 'news.example',
      publishedAt: '2024-01-01',
      body: 'Line one.\n\nLine two.',
      attribution: 'Example',
    });
    expect(importArticles(db, articles)).toBe(1);
    expect(importArticles(db, articles)).toBe(0);
    expect(importArticles(db, [{ ...articles[0]!, title: 'Updated' }])).toBe(1);
  });

  it('imports JSON lines and reports the bad line', () => {
    const jsonl = `${article('https://x.example/1', 'One', 'Body one')}\n\n${article('https://x.example/2', 'Two', 'Body two')}\n`;
    expect(parseArticlesJsonl(jsonl).map((a) => a.title)).toEqual(['One', 'Two']);
    expect(() => parseArticlesJsonl('{"title":"no link"}')).toThrow(/line 1: link/);
  });
});

describe('financial-crime context', () => {
  beforeEach(() => {
    importArticles(
      db,
      parseArticlesJsonl(
        [
          article(
            'https://t.example/launder',
            'Businessman charged',
            'Prosecutors said Chidi Okafor was charged with money laundering and bribery of officials in Lagos.',
          ),
          article(
            'https://t.example/doping',
            'Sprinter banned',
            'The athlete Chidi Okafor was sanctioned for doping by the anti-doping agency after the race.',
          ),
          article(
            'https://t.example/country',
            'Oil exports',
            'Chidi Okafor, an analyst, said sanctions on Iran would raise oil prices this year.',
          ),
          article(
            'https://t.example/election',
            'Campaign claims',
            'Chidi Okafor repeated claims of election fraud at a rally, without evidence.',
          ),
          article(
            'https://t.example/evasion',
            'Shipping network',
            'The Treasury said Ngozi Bello helped the network evade sanctions through front companies.',
          ),
          article('https://t.example/acquitted', 'Trial ends', 'Emeka Nwosu was acquitted of fraud charges on Friday.'),
        ].join('\n'),
      ),
    );
  });

  it('scores financial crime near the name, as fractions with keywords', () => {
    const [hit, ...rest] = searchAdverseMedia(db, 'Chidi Okafor');
    expect(rest).toEqual([]);
    expect(hit).toMatchObject({
      link: 'https://t.example/launder',
      origin: 'Test Wire',
      publishedAt: '2024-01-02',
      keyword: { confidenceScore: 1 },
    });
    expect(hit!.adverseInformation.map((a) => a.keyword)).toEqual(['money laundering', 'bribery']);
    for (const a of hit!.adverseInformation) expect(a.score).toBeGreaterThan(0.5);
    expect(hit!.adverseInformation.every((a) => a.score <= 1)).toBe(true);
    expect(hit!.snippet).toContain('money laundering');
  });

  it('does not count doping sanctions, country sanctions or election-fraud claims', () => {
    const all = searchAdverseMedia(db, 'Chidi Okafor', { minScore: 0 });
    const byLink = Object.fromEntries(all.map((r) => [r.link, r.adverseInformation]));
    expect(byLink['https://t.example/doping']).toEqual([]);
    expect(byLink['https://t.example/country']).toEqual([]);
    expect(byLink['https://t.example/election']).toEqual([]);
  });

  it('recognises sanctions evasion, finds reordered names and discounts acquittals', () => {
    expect(searchAdverseMedia(db, 'Bello Ngozi')[0]).toMatchObject({
      keyword: { confidenceScore: 0.8 },
      adverseInformation: [{ keyword: 'sanctions evasion' }],
    });
    const acquitted = searchAdverseMedia(db, 'Emeka Nwosu', { minScore: 0 })[0]!;
    expect(acquitted.adverseInformation[0]!.score).toBeLessThan(0.5);
    expect(searchAdverseMedia(db, 'Emeka Nwosu')).toEqual([]);
  });

  it('searches a long query by its first words, so that it cannot hold the process', () => {
    // Without the cap, NEAR over this many phrases runs for minutes on the event loop.
    const long = `Bello Ngozi ${'ab '.repeat(100_000)}`;
    expect(searchAdverseMedia(db, long)).toEqual([]);
    expect(searchAdverseMedia(db, `Bello Ngozi${' Bello'.repeat(30)}`)[0]).toMatchObject({
      adverseInformation: [{ keyword: 'sanctions evasion' }],
    });
  });

  it('treats FTS5 syntax in queries as plain words', () => {
    expect(searchAdverseMedia(db, 'Okafor" OR "x')).toEqual([]);
    expect(searchAdverseMedia(db, 'NEAR(*)')).toEqual([]);
  });
});

describe('bundled Wikinews corpus', () => {
  it('seeds once, keeps the CC BY attribution and finds real fraud coverage', () => {
    expect(seedWikinews(db)).toBe(295);
    expect(seedWikinews(db)).toBe(0);
    const [manafort] = searchAdverseMedia(db, 'Paul Manafort');
    expect(manafort).toMatchObject({ origin: 'Wikinews', attribution: WIKINEWS_ATTRIBUTION });
    expect(manafort!.link).toMatch(/^https:\/\/en\.wikinews\.org\/wiki\/Former_Trump_advisor/);
    expect(manafort!.adverseInformation[0]!.keyword).toBe('fraud');
    // Named in Iran-sanctions news, but nothing adverse about the airline itself.
    expect(searchAdverseMedia(db, 'Mahan Air')).toEqual([]);
  });
});
