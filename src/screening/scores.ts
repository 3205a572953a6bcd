// The rules' sanctionsScore() and pepScore() in a thread that decides but does not screen (a deciding thread,
// src/monitoring/deciding-thread.ts): the matcher over the lists in force, built from what the engine's thread has
// registered and cached, and built again when a list is imported.
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { Matcher } from '../name-matching/matcher.js';
import type { EventStore } from '../store/index.js';
import { ListCatalog } from './catalog.js';
import { screeningFiles } from './service.js';

export class ScreeningScores {
  #ready: Matcher;

  private constructor(ready: Matcher) {
    this.#ready = ready;
  }

  /** Resolves once the matcher is built, so that no decision is scored against an empty index. */
  static async open(deps: { db: Kysely<any>; store: EventStore; clock: Clock; logger: Logger; dataDir: string; cacheDir?: string }) {
    const { db, store, clock, logger, dataDir, cacheDir } = deps;
    const catalog = new ListCatalog(db, store, clock, dataDir, screeningFiles(db, dataDir), logger, cacheDir);
    const scores = new ScreeningScores(await catalog.matcher());
    // Until the new matcher is built, the lists before the import keep scoring, as ScreeningService does.
    store.subscribe((events) => {
      if (!events.some((e) => e.type === 'ScreeningListImported')) return;
      catalog.matcher().then(
        (matcher) => (scores.#ready = matcher),
        (err: unknown) => logger.error({ err }, 'screening lists could not be reloaded'),
      );
    });
    return scores;
  }

  readonly bestScore = (kind: 'sanctions' | 'pep', name: string): number =>
    this.#ready.bestScore(name, kind === 'sanctions' ? 'sanction' : 'pep');
}
