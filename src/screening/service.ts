import { join } from 'node:path';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { newId } from '../ids.js';
import type { Logger } from '../logger.js';
import type { AdverseMediaResult } from '../name-matching/adverse-media/search.js';
import type { Matcher, ScreenResult } from '../name-matching/matcher.js';
import { type EventStore, migrateFileTable, openFileStore } from '../store/index.js';
import type { WebhookService } from '../webhooks/index.js';
import { BackgroundLoop } from '../workers/loop.js';
import { ArticleIndex, type ArticleImportOutcome } from './adverse-media.js';
import { ListCatalog, type ImportOutcome } from './catalog.js';
import {
  checkStream,
  type CheckDestination,
  type CheckKind,
  type CheckQuery,
  type CheckStatus,
  type ListFormat,
  type ListVersion,
} from './events.js';
import { CheckRunner, computeResult, DEFAULT_LIMIT, DEFAULT_THRESHOLD } from './jobs.js';
import type { AmlTables, ScreeningChecksTable, ScreeningListsTable } from './projection.js';

export interface ScreeningActor {
  businessId: string;
  userId?: string;
  requestId?: string;
}

/** A name to screen. threshold: minimum confidenceScore 0–100 (default 85); limit: results per list type (default 10). */
export interface ScreenQuery {
  name: string;
  threshold?: number;
  limit?: number;
  lists?: string[];
  country?: string;
  birthDate?: string;
  gender?: string;
}

export interface SubmitRequest {
  kind: Exclude<CheckKind, 'screen'>;
  /** The name, or the adverse-media free text. */
  text: string;
  threshold?: number;
  limit?: number;
  country?: string;
  callbackUrl?: string;
}

export interface CheckView {
  id: string;
  kind: CheckKind;
  status: CheckStatus;
  query: string;
  parameters: CheckQuery;
  businessProfile: string;
  callbackUrl: string | null;
  callbackSource: CheckDestination['source'] | null;
  deliveryId: string | null;
  listVersions: ListVersion[];
  result: unknown;
  error: string | null;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
}

const toView = (r: ScreeningChecksTable): CheckView => {
  const parameters = JSON.parse(r.query) as CheckQuery;
  return {
    id: r.check_id,
    kind: r.kind,
    status: r.status,
    query: parameters.text,
    parameters,
    businessProfile: r.business_id,
    callbackUrl: r.destination_url,
    callbackSource: (r.destination_source as CheckDestination['source'] | null) ?? null,
    deliveryId: r.delivery_id,
    listVersions: JSON.parse(r.list_versions) as ListVersion[],
    result: r.result === null ? null : JSON.parse(r.result),
    error: r.error,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    completedAt: r.completed_at,
  };
};

function checkBounds(q: { threshold?: number; limit?: number }): void {
  if (q.threshold !== undefined && !(Number.isInteger(q.threshold) && q.threshold >= 0 && q.threshold <= 100)) {
    throw new ValidationError('threshold must be an integer from 0 to 100', 'threshold');
  }
  if (q.limit !== undefined && !(Number.isInteger(q.limit) && q.limit >= 1 && q.limit <= 100))
    throw new ValidationError('limit must be an integer from 1 to 100', 'limit');
}

function required(value: string | undefined, field: string): string {
  const text = value?.trim();
  if (!text) throw new ValidationError(`${field} is required`, field);
  return text;
}

/** Imported lists and news feeds on PostgreSQL, so every node indexes what any node imported (docs/postgres.md). */
const SCREENING_FILES = 'screening_files';

export const migrateScreeningFiles = (db: Kysely<any>): Promise<void> => migrateFileTable(db, SCREENING_FILES);

/** Imported lists' records: under DATA_DIR on SQLite, in the database's file table on PostgreSQL. */
export const screeningFiles = (db: Kysely<any>, dataDir: string) =>
  openFileStore(db, { table: SCREENING_FILES, pathOf: (key) => join(dataDir, key) });

/**
 * Name screening as the engine offers it: `screen` and `adverseMedia` answer in-process (the CDD workflows and
 * the synchronous endpoint use them); `submit` records an asynchronous check whose result is delivered by
 * webhook and kept for polling; `importList` brings in a new list version.
 */
export class ScreeningService {
  readonly #db: Kysely<AmlTables>;
  readonly #catalog: ListCatalog;
  readonly #articles: ArticleIndex;
  readonly #runner: CheckRunner;
  readonly #loop: BackgroundLoop;
  #matcher: Promise<Matcher> | undefined;
  /** The last matcher built, for callers that cannot wait (the instant path); replaced once a rebuild is ready. */
  #ready: Matcher | undefined;

  constructor(
    db: Kysely<any>,
    private readonly store: EventStore,
    private readonly clock: Clock,
    logger: Logger,
    private readonly webhooks: WebhookService,
    dataDir: string,
    /** Folder of the derived screening files (parsed lists, index); undefined: none kept on disk. */
    cacheDir?: string,
  ) {
    this.#db = db;
    const files = screeningFiles(db, dataDir);
    this.#catalog = new ListCatalog(db, store, clock, dataDir, files, logger, cacheDir);
    this.#articles = new ArticleIndex(store, clock, dataDir, files, logger);
    this.#runner = new CheckRunner(
      this.#db,
      store,
      clock,
      logger,
      webhooks,
      () => this.matcher(),
      () => this.#articles.searcher(),
    );
    // Building the matcher first means the server pays for it at start, not on the first request.
    this.#loop = new BackgroundLoop('screening worker', () => this.matcher().then(() => this.runPending()), logger);
    // A list imported here or by another process (the CLI) takes effect at the next screening.
    store.subscribe((events) => {
      if (events.some((e) => e.type === 'ScreeningListImported')) {
        this.#matcher = undefined;
        if (this.#ready) void this.matcher().catch((err: unknown) => logger.error({ err }, 'screening lists could not be reloaded'));
      }
    });
  }

  /** The matcher over the lists in force; the bundled lists are recorded as versions on first use. */
  matcher(): Promise<Matcher> {
    this.#matcher ??= this.#catalog
      .registerEmbedded()
      .then(() => this.#catalog.matcher())
      .then((matcher) => (this.#ready = matcher))
      .catch((error: unknown) => {
        this.#matcher = undefined;
        throw error;
      });
    return this.#matcher;
  }

  /**
   * The best score of a name against one kind of list, synchronously, for the rule language's sanctionsScore()
   * and pepScore(). The engine builds the matcher before it serves, so this never answers from an empty index.
   */
  bestScore(name: string, kind: 'sanctions' | 'pep'): number {
    if (!this.#ready) throw new Error('screening lists are not loaded yet');
    return this.#ready.bestScore(name, kind === 'sanctions' ? 'sanction' : 'pep');
  }

  /** Synchronous screening against PEP and sanction lists; records nothing (callers record their own checks). */
  async screen(query: ScreenQuery): Promise<ScreenResult> {
    const name = required(query.name, 'name');
    checkBounds(query);
    return (await this.matcher()).screen({
      name,
      threshold: query.threshold ?? DEFAULT_THRESHOLD,
      limit: query.limit ?? DEFAULT_LIMIT,
      lists: query.lists,
      country: query.country,
      birthDate: query.birthDate,
      gender: query.gender,
    });
  }

  /** Adverse-media search over the article index; best first, at most `limit`. */
  async adverseMedia(query: string, limit = DEFAULT_LIMIT): Promise<AdverseMediaResult[]> {
    const text = required(query, 'q');
    checkBounds({ limit });
    return (await this.#articles.searcher())(text, limit);
  }

  /** The synchronous endpoint: screens and records the check (request and result) so it can be audited and fetched. */
  async screenAndRecord(actor: ScreeningActor, query: ScreenQuery): Promise<{ checkId: string } & ScreenResult> {
    const text = required(query.name, 'name');
    checkBounds(query);
    const matcher = await this.matcher();
    const now = this.clock.now().toISOString();
    const checkId = newId(this.clock.now());
    const { name: _name, ...attributes } = query;
    const parameters: CheckQuery = {
      ...attributes,
      text,
      threshold: query.threshold ?? DEFAULT_THRESHOLD,
      limit: query.limit ?? DEFAULT_LIMIT,
    };
    const requestedBy = actor.userId ?? actor.businessId;
    const { result, listVersions } = computeResult(matcher, await this.#articles.searcher(), 'screen', parameters, {
      checkId,
      query: text,
      requestedAt: now,
      completedAt: now,
      requestedBy,
    });
    await this.store.append(
      checkStream(checkId),
      [
        {
          type: 'ScreeningCheckRequested',
          data: { checkId, kind: 'screen', query: parameters, destination: null, requestedBy, requestedAt: now },
        },
        { type: 'ScreeningCheckCompleted', data: { checkId, result, listVersions, deliveryId: null, completedAt: now } },
      ],
      { expectedVersion: 'no_stream', metadata: this.#metadata(actor) },
    );
    return { checkId, ...(result as ScreenResult) };
  }

  /**
   * Records an asynchronous check and returns at once. The request event names where the result will go (the
   * callbackUrl, else the business's default webhook), so an acknowledged check cannot lose its delivery.
   */
  async submit(actor: ScreeningActor, request: SubmitRequest): Promise<CheckView> {
    const text = required(request.text, request.kind === 'adverse-media' ? 'q' : 'name');
    checkBounds(request);
    const destination = await this.#destination(actor.businessId, request.callbackUrl);
    const now = this.clock.now();
    const checkId = newId(now);
    const query: CheckQuery = {
      text,
      limit: request.limit ?? DEFAULT_LIMIT,
      ...(request.kind === 'adverse-media' ? {} : { threshold: request.threshold ?? DEFAULT_THRESHOLD }),
      ...(request.country ? { country: request.country } : {}),
    };
    await this.store.append(
      checkStream(checkId),
      [
        {
          type: 'ScreeningCheckRequested',
          data: {
            checkId,
            kind: request.kind,
            query,
            destination,
            requestedBy: actor.userId ?? actor.businessId,
            requestedAt: now.toISOString(),
          },
        },
      ],
      { expectedVersion: 'no_stream', metadata: this.#metadata(actor) },
    );
    this.#loop.kick();
    return this.check(actor.businessId, checkId);
  }

  async check(businessId: string, checkId: string): Promise<CheckView> {
    const row = await this.#db
      .selectFrom('screening_checks')
      .selectAll()
      .where('business_id', '=', businessId)
      .where('check_id', '=', checkId)
      .executeTakeFirst();
    if (!row) throw new NotFoundError('Check not found');
    return toView(row);
  }

  /** Runs every pending check now (tests; the background worker calls it too). */
  runPending(): Promise<number> {
    return this.#runner.runPending();
  }

  async importList(input: { format: ListFormat; path: string; list?: string }): Promise<ImportOutcome> {
    await this.#catalog.registerEmbedded();
    const outcome = await this.#catalog.import(input);
    // The rules' sanctionsScore() reads the matcher synchronously: a list imported through this process is in force
    // for the next decision once the import returns (other processes take it up when the event reaches them).
    if (outcome.changed && this.#ready) {
      this.#matcher = undefined;
      await this.matcher();
    }
    return outcome;
  }

  /** Adds a news-feed file of articles to the adverse-media index (an event; unchanged content is a no-op). */
  importArticles(path: string): Promise<ArticleImportOutcome> {
    return this.#articles.import(path);
  }

  /** The list versions in force (registering the bundled ones if this is the first start). */
  async lists(): Promise<ScreeningListsTable[]> {
    await this.#catalog.registerEmbedded();
    return this.#catalog.inForce();
  }

  /** Runs checks as they are requested and polls for leftovers (a crash between acknowledgement and result). */
  start(intervalMs: number): void {
    this.#loop.start(this.store, intervalMs, (e) => e.type === 'ScreeningCheckRequested' || e.type === 'ScreeningListImported');
  }

  close(): Promise<void> {
    return this.#loop.stop();
  }

  async #destination(businessId: string, callbackUrl: string | undefined): Promise<CheckDestination | null> {
    if (callbackUrl !== undefined) return { url: await this.webhooks.checkUrl(callbackUrl, 'callbackUrl'), source: 'callback' };
    const { url } = await this.webhooks.endpoint(businessId);
    return url ? { url, source: 'default' } : null;
  }

  #metadata(actor: ScreeningActor) {
    return { businessId: actor.businessId, actor: actor.userId ?? 'api', requestId: actor.requestId };
  }
}
