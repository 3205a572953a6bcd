import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import { ValidationError } from '../errors.js';
import type { Logger } from '../logger.js';
import { loadEmbeddedLists } from '../name-matching/embedded.js';
import { indexFor } from '../name-matching/index-snapshot.js';
import { createMatcher, type Matcher } from '../name-matching/matcher.js';
import type { ScreeningList } from '../name-matching/records.js';
import { ExpectedVersionConflictError, type EventStore, type FileStore, readWhole } from '../store/index.js';
import { listStream, type ListFormat, type ListImportedData } from './events.js';
import { readListSource } from './formats.js';
import type { AmlTables, ScreeningListsTable } from './projection.js';

const SYSTEM = { businessId: 'system', actor: 'screening-lists' } as const;

/**
 * Parsing the bundled lists and indexing them take seconds: both are done once per process and shared by every
 * engine in it (tests start dozens), and read from the cache folder when an earlier process left them there.
 */
let shared: { key: string; matcher: Promise<Matcher | string> } | undefined;

export interface ImportOutcome {
  changed: boolean;
  list: string;
  type: ScreeningList['type'];
  version: string;
  contentHash: string;
  records: number;
}

/**
 * Which version of each list is in force, and the records behind it. Every version is an event
 * (`ScreeningListImported`): the bundled lists at first start, and each `screening import`. Imported records
 * are kept as JSON named by content hash (screening-lists/ in the file store: DATA_DIR on SQLite, a table that
 * every node reads on PostgreSQL), so they survive restarts and reach every node.
 */
export class ListCatalog {
  readonly #db: Kysely<AmlTables>;

  constructor(
    db: Kysely<any>,
    private readonly store: EventStore,
    private readonly clock: Clock,
    private readonly dataDir: string,
    private readonly files: FileStore,
    private readonly logger: Logger,
    /** Folder of derived files (the parsed bundled lists, the index); undefined: none kept on disk. */
    private readonly cacheDir: string | undefined,
  ) {
    this.#db = db;
  }

  async inForce(): Promise<ScreeningListsTable[]> {
    return this.#db.selectFrom('screening_lists').selectAll().orderBy('list').execute();
  }

  /**
   * Records the bundled lists as versions: at first start, and again when an upgrade ships new content. A list
   * the operator imported under the same name keeps precedence.
   */
  async registerEmbedded(): Promise<void> {
    const current = new Map((await this.inForce()).map((r) => [r.list, r]));
    for (const list of await this.#embedded()) {
      const row = current.get(list.name);
      if (row && (row.format !== 'embedded' || row.content_hash === list.contentHash)) continue;
      await this.#record(list, 'embedded', null);
    }
  }

  async import(input: { format: ListFormat; path: string; list?: string }): Promise<ImportOutcome> {
    const parsed = await readListSource(input.format, input.path, input.list);
    const outcome = {
      list: parsed.name,
      type: parsed.type,
      version: parsed.version,
      contentHash: parsed.contentHash,
      records: parsed.entries.length,
    };
    const row = await this.#db.selectFrom('screening_lists').selectAll().where('list', '=', parsed.name).executeTakeFirst();
    if (row?.content_hash === parsed.contentHash) return { changed: false, ...outcome };
    if (parsed.entries.length === 0) throw new ValidationError(`${input.path} holds no ${input.format} records`, 'path');
    if (this.dataDir === ':memory:') throw new ValidationError('importing a list needs a data directory (DATA_DIR)', 'path');
    const file = join('screening-lists', parsed.name, `${parsed.contentHash}.json`);
    await this.files.put(file, JSON.stringify(parsed));
    await this.#record(parsed, input.format, file);
    return { changed: true, ...outcome };
  }

  /** A matcher over the lists in force; rebuilt only when a list version changed. */
  async matcher(): Promise<Matcher> {
    const rows = await this.inForce();
    const byVersion = new Map(rows.map((r) => [`${r.list}@${r.content_hash}`, r]));
    const versions = rows.map((r) => ({ list: r.list, version: r.version, contentHash: r.content_hash, file: r.file }));
    const load = async (wanted: readonly ListVersionRef[]) =>
      (await Promise.all(wanted.map((v) => this.#load(byVersion.get(`${v.list}@${v.contentHash}`)!)))).flat();
    return sharedMatcher<never>(versions, load, { cacheDir: this.cacheDir, logger: this.logger });
  }

  #embedded(): Promise<ScreeningList[]> {
    return loadEmbeddedLists({ cacheDir: this.cacheDir, logger: this.logger });
  }

  async #load(row: ScreeningListsTable): Promise<ScreeningList[]> {
    if (row.file === null) {
      const list = (await this.#embedded()).find((l) => l.name === row.list && l.contentHash === row.content_hash);
      if (!list) this.logger.warn({ list: row.list, version: row.version }, 'bundled list version no longer shipped; list skipped');
      return list ? [list] : [];
    }
    return [JSON.parse((await readWhole(this.files, row.file)).toString('utf8')) as ScreeningList];
  }

  async #record(list: ScreeningList, format: ListImportedData['format'], file: string | null): Promise<void> {
    const data: ListImportedData = {
      list: list.name,
      type: list.type,
      format,
      version: list.version,
      contentHash: list.contentHash,
      records: list.entries.length,
      publishedAt: list.publishedAt,
      file,
      importedAt: this.clock.now().toISOString(),
    };
    const stream = listStream(list.name);
    try {
      await this.store.append(stream, [{ type: 'ScreeningListImported', data }], {
        expectedVersion: await this.store.streamVersion(stream),
        metadata: SYSTEM,
      });
    } catch (error) {
      // Another process (the server and the CLI starting together) recorded a version first; its event stands.
      if (!(error instanceof ExpectedVersionConflictError)) throw error;
    }
  }
}

/** One version of a list, as a ScreeningListImported event names it. */
export interface ListVersionRef {
  readonly list: string;
  readonly version: string;
  readonly contentHash: string;
  /** Its records relative to the data directory; null for a bundled list. */
  readonly file: string | null;
}

/** The records of a list version, or why they cannot be had any more. */
export async function loadListVersion(v: ListVersionRef, dataDir: string): Promise<ScreeningList | string> {
  if (v.file === null) {
    const list = (await loadEmbeddedLists()).find((l) => l.name === v.list && l.contentHash === v.contentHash);
    return list ?? `the bundled list ${v.list} version ${v.version} is no longer shipped`;
  }
  try {
    return JSON.parse(readFileSync(join(dataDir, v.file), 'utf8')) as ScreeningList;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return `the screening list ${v.list} version ${v.version} is no longer on disk (${v.file})`;
  }
}

/**
 * A matcher over these list versions (or why `load` could not have their records), built once per process for each
 * set: engines starting together, the live matcher and a backtest over the same versions share one build.
 */
export function sharedMatcher<Why extends string = never>(
  versions: readonly ListVersionRef[],
  load: (versions: readonly ListVersionRef[]) => Promise<ScreeningList[] | Why>,
  options: { cacheDir?: string; logger?: Logger } = {},
): Promise<Matcher | Why> {
  const key = [...versions]
    .sort((a, b) => (a.list < b.list ? -1 : a.list > b.list ? 1 : 0))
    .map((v) => `${v.list}@${v.contentHash}`)
    .join(',');
  if (shared?.key !== key) {
    const matcher = load(versions).then(async (lists) =>
      typeof lists === 'string' ? lists : createMatcher(lists, await indexFor(lists, options)),
    );
    const entry = { key, matcher };
    shared = entry;
    // Neither a failure nor a reason the records cannot be had is kept: the next caller tries again.
    const forget = () => {
      if (shared === entry) shared = undefined;
    };
    matcher.then((m) => typeof m === 'string' && forget(), forget);
  }
  return shared.matcher as Promise<Matcher | Why>;
}
