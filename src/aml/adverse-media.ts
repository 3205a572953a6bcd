import Database from 'better-sqlite3';
import { searchAdverseMedia, type AdverseMediaResult } from '../screening/adverse-media/search.js';
import { seedWikinews } from '../screening/adverse-media/wikinews.js';

/**
 * The article index over the bundled Wikinews corpus. It is reference data, not state: rebuilt in memory on
 * first use (a fraction of a second) and shared by every engine of the process.
 */
let index: Database.Database | undefined;

function articles(): Database.Database {
  if (!index) {
    index = new Database(':memory:');
    seedWikinews(index);
  }
  return index;
}

export function searchArticles(query: string, limit: number): AdverseMediaResult[] {
  return searchAdverseMedia(articles(), query, { limit });
}
