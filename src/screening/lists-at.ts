// The screening lists as they were at a position in the log, for a backtest: the versions the ScreeningListImported
// events before it put in force, and a matcher over them, built only when a backtested decision asks for a score
// it did not record. A version whose records are gone (an imported file deleted, a bundled version no longer
// shipped) makes such a decision unreproducible, naming the version.
import { NotYetLoaded, Unreproducible, type ScreeningKind } from '../rules/index.js';
import type { Matcher } from '../name-matching/matcher.js';
import type { ScreeningList } from '../name-matching/records.js';
import { loadListVersion, sharedMatcher } from './catalog.js';
import type { AmlEvent, ListImportedData } from './events.js';

/** The events that change which list versions are in force. */
export const LIST_VERSION_EVENTS: readonly AmlEvent['type'][] = ['ScreeningListImported'];

/** The matcher over the versions in force, once built (or why it cannot be), and the promise of it until then. */
interface Built {
  ready: Matcher | string | undefined;
  loading: Promise<unknown>;
}

export class ScreeningListsAt {
  readonly #inForce = new Map<string, ListImportedData>();
  #built: Built | undefined;

  constructor(private readonly dataDir: string) {}

  /** A ScreeningListImported event's data, in log order. */
  apply(data: ListImportedData): void {
    this.#inForce.set(data.list, data);
    this.#built = undefined;
  }

  /** The rules' sanctionsScore and pepScore over the versions in force. */
  readonly bestScore = (kind: ScreeningKind, name: string): number => {
    if (this.#inForce.size === 0) throw new Unreproducible('no screening list version was in force at its position');
    if (!this.#built) {
      const built: Built = { ready: undefined, loading: Promise.resolve() };
      built.loading = this.#matcher().then((m) => (built.ready = m));
      this.#built = built;
    }
    const { ready, loading } = this.#built;
    if (ready === undefined) throw new NotYetLoaded(loading);
    if (typeof ready === 'string') throw new Unreproducible(ready);
    return ready.bestScore(name, kind === 'sanctions' ? 'sanction' : 'pep');
  };

  #matcher(): Promise<Matcher | string> {
    return sharedMatcher([...this.#inForce.values()], async (versions) => {
      const lists: ScreeningList[] = [];
      // Imported versions first: a missing file is found before the bundled lists are parsed for nothing.
      for (const v of [...versions].sort((a, b) => Number(a.file === null) - Number(b.file === null))) {
        const loaded = await loadListVersion(v, this.dataDir);
        if (typeof loaded === 'string') return `${loaded}, and it was in force at its position`;
        lists.push(loaded);
      }
      return lists;
    });
  }
}
