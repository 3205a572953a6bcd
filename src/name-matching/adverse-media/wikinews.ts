/** Seeds the article index with the bundled Wikinews 2019–2020 articles (CC BY 2.5, attribution kept). */
import { readFileSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { dataPath } from '../data-path.js';
import { parseArticlesCsv } from './articles.js';
import { importArticles } from './store.js';

export const WIKINEWS_ATTRIBUTION = 'Wikinews contributors, CC BY 2.5 (https://creativecommons.org/licenses/by/2.5/)';

export function seedWikinews(db: Database.Database): number {
  const articles = ['news/wikinews_2019.csv', 'news/wikinews_2020.csv'].flatMap((file) =>
    parseArticlesCsv(readFileSync(dataPath(file), 'utf8'), { attribution: WIKINEWS_ATTRIBUTION }).map((a) => ({
      ...a,
      origin: 'Wikinews',
    })),
  );
  return importArticles(db, articles);
}
