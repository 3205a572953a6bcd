/**
 * The article index: a plain table plus an FTS5 external-content index kept in sync by triggers.
 * Works on any better-sqlite3 handle (SQLite's bundled FTS5); importing is idempotent per link.
 */
import type Database from 'better-sqlite3';
import type { Article } from './articles.js';

export function createArticleTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS adverse_media_articles (
      id INTEGER PRIMARY KEY,
      link TEXT NOT NULL UNIQUE,
      title TEXT NOT NULL,
      origin TEXT NOT NULL,
      published_at TEXT,
      body TEXT NOT NULL,
      attribution TEXT
    );
    CREATE VIRTUAL TABLE IF NOT EXISTS adverse_media_fts USING fts5(
      title, body, content='adverse_media_articles', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
    );
    CREATE TRIGGER IF NOT EXISTS adverse_media_ai AFTER INSERT ON adverse_media_articles BEGIN
      INSERT INTO adverse_media_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
    END;
    CREATE TRIGGER IF NOT EXISTS adverse_media_ad AFTER DELETE ON adverse_media_articles BEGIN
      INSERT INTO adverse_media_fts(adverse_media_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
    END;
    CREATE TRIGGER IF NOT EXISTS adverse_media_au AFTER UPDATE ON adverse_media_articles BEGIN
      INSERT INTO adverse_media_fts(adverse_media_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
      INSERT INTO adverse_media_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
    END;
  `);
}

/** Inserts new articles and refreshes changed ones (same link); returns how many rows changed. */
export function importArticles(db: Database.Database, articles: readonly Article[]): number {
  createArticleTables(db);
  const upsert = db.prepare(`
    INSERT INTO adverse_media_articles (link, title, origin, published_at, body, attribution)
    VALUES (@link, @title, @origin, @publishedAt, @body, @attribution)
    ON CONFLICT(link) DO UPDATE SET title = excluded.title, origin = excluded.origin,
      published_at = excluded.published_at, body = excluded.body, attribution = excluded.attribution
    WHERE title IS NOT excluded.title OR origin IS NOT excluded.origin OR published_at IS NOT excluded.published_at
      OR body IS NOT excluded.body OR attribution IS NOT excluded.attribution
  `);
  return db.transaction((rows: readonly Article[]) => rows.reduce((n, a) => n + upsert.run(a).changes, 0))(articles);
}

export interface StoredArticle extends Article {
  id: number;
}

/** Articles whose title or body contains every query word near one another, best BM25 first. */
export function findArticles(db: Database.Database, words: readonly string[], limit: number): StoredArticle[] {
  if (!words.length) return [];
  // Each word is quoted, so no user input is read as FTS5 syntax.
  const near = `NEAR(${words.map((w) => `"${w.replace(/"/g, '""')}"`).join(' ')}, ${words.length + 3})`;
  return db
    .prepare(
      `SELECT a.id, a.link, a.title, a.origin, a.published_at AS publishedAt, a.body, a.attribution
       FROM adverse_media_fts f JOIN adverse_media_articles a ON a.id = f.rowid
       WHERE adverse_media_fts MATCH ? ORDER BY bm25(adverse_media_fts) LIMIT ?`,
    )
    .all(near, limit) as StoredArticle[];
}
