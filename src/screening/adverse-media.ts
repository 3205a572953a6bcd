import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import Database from 'better-sqlite3';
import type { Clock } from '../clock.js';
import { ValidationError } from '../errors.js';
import type { Logger } from '../logger.js';
import { parseArticlesCsv, parseArticlesJsonl, type Article } from '../name-matching/adverse-media/articles.js';
import { searchAdverseMedia, type AdverseMediaResult } from '../name-matching/adverse-media/search.js';
import { importArticles } from '../name-matching/adverse-media/store.js';
import { seedWikinews } from '../name-matching/adverse-media/wikinews.js';
import { type EventStore, type FileStore, readWhole, type StoredEvent } from '../store/index.js';
import { ARTICLE_IMPORTS_STREAM, type ArticlesImportedData } from './events.js';

export type ArticleSearch = (query: string, limit: number) => AdverseMediaResult[];

export interface ArticleImportOutcome {
  changed: boolean;
  articles: number;
  contentHash: string;
}

const parsers: Record<ArticlesImportedData['format'], (text: string) => Article[]> = {
  csv: parseArticlesCsv,
  jsonl: parseArticlesJsonl,
};

/**
 * The adverse-media article index: the bundled Wikinews articles plus every feed file imported into this data
 * directory. The index itself is an in-memory FTS5 table rebuilt from those files on first use; the imports are
 * events, and each imported file is kept in the file store (DATA_DIR on SQLite, a table on PostgreSQL), so a
 * restart, another process or another node sees the same articles.
 */
export class ArticleIndex {
  #index: Database.Database | undefined;
  /** Imports heard of once the index was built, loaded in order: a search waits for them. */
  #loads: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: EventStore,
    private readonly clock: Clock,
    private readonly dataDir: string,
    private readonly files: FileStore,
    private readonly logger: Logger,
  ) {
    // Imports made by the CLI reach a running server through the log.
    store.subscribe((events) => {
      for (const e of events)
        if (e.type === 'AdverseMediaArticlesImported' && this.#index) {
          const index = this.#index;
          this.#loads = this.#loads.then(() => this.#load(index, e.data as ArticlesImportedData));
        }
    });
  }

  /** A synchronous search over the index, once it is built (screening jobs compute their result in one go). */
  async searcher(): Promise<ArticleSearch> {
    const index = await this.#ready();
    await this.#loads;
    return (query, limit) => searchAdverseMedia(index, query, { limit });
  }

  /** Adds a news-feed file (`.csv` or `.jsonl`, one article per row); the same content again is a no-op. */
  async import(path: string): Promise<ArticleImportOutcome> {
    const format = extname(path).slice(1).toLowerCase();
    if (format !== 'csv' && format !== 'jsonl') throw new ValidationError(`${path} must be a .csv or .jsonl file`, 'path');
    const text = readFileSync(path, 'utf8');
    let articles: Article[];
    try {
      articles = parsers[format](text);
    } catch (error) {
      throw new ValidationError(`${path}: ${(error as Error).message}`, 'path');
    }
    if (articles.length === 0) throw new ValidationError(`${path} holds no articles`, 'path');
    const contentHash = createHash('sha256').update(text).digest('hex');
    const history = await this.store.readStream(ARTICLE_IMPORTS_STREAM);
    if (history.some((e) => (e.data as ArticlesImportedData).contentHash === contentHash))
      return { changed: false, articles: articles.length, contentHash };
    if (this.dataDir === ':memory:') throw new ValidationError('importing articles needs a data directory (DATA_DIR)', 'path');
    const file = join('adverse-media', `${contentHash}.${format}`);
    await this.files.put(file, text);
    const data: ArticlesImportedData = { format, file, articles: articles.length, contentHash, importedAt: this.clock.now().toISOString() };
    await this.store.append(ARTICLE_IMPORTS_STREAM, [{ type: 'AdverseMediaArticlesImported', data }], {
      expectedVersion: history.length,
      metadata: { businessId: 'system', actor: 'cli' },
    });
    return { changed: true, articles: articles.length, contentHash };
  }

  async #ready(): Promise<Database.Database> {
    if (this.#index) return this.#index;
    const imports: StoredEvent[] = await this.store.readStream(ARTICLE_IMPORTS_STREAM);
    const index = new Database(':memory:');
    seedWikinews(index);
    for (const e of imports) await this.#load(index, e.data as ArticlesImportedData);
    return (this.#index ??= index);
  }

  async #load(index: Database.Database, data: ArticlesImportedData): Promise<void> {
    try {
      importArticles(index, parsers[data.format]((await readWhole(this.files, data.file)).toString('utf8')));
    } catch (err) {
      this.logger.error({ err, file: data.file }, 'imported article file could not be loaded');
    }
  }
}
