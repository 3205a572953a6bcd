import type { Kysely } from 'kysely';
import type { Logger } from '../logger.js';
import type { KeyCustody } from './key-custody.js';
import type { EdgeCandidate, LogTree } from './log-tree.js';
import { edgeSignedBy, signEdge, StoredEdge } from './stored-edge.js';

/**
 * How often a server stores the tree's right edge (when it grew), unless the engine's `auditEdgeIntervalMs` says
 * otherwise: a start after a crash reads at most this much log again.
 */
export const EDGE_INTERVAL_MS = 10_000;

/**
 * Keeps the tree's right edge stored between tree heads, so that a start reads only the events after it whether or
 * not tree heads are published: a server stores it every EDGE_INTERVAL_MS when the tree grew, and at a clean shutdown.
 */
export class EdgeKeeper {
  readonly #edges: StoredEdge;
  readonly #keys: KeyCustody;
  readonly #logger: Logger;
  /** The size of the edge stored (by this process, or found at start and signed by the key); -1: none to keep. */
  #storedSize = -1;
  #storing: Promise<void> = Promise.resolve();

  constructor(db: Kysely<any>, keys: KeyCustody, logger: Logger) {
    this.#edges = new StoredEdge(db);
    this.#keys = keys;
    this.#logger = logger;
  }

  /**
   * The stored edge to go on from at start, if there is one signed by the log's current key (the tree then
   * checks it against the log). One that is not is left out, with a warning, and replaced by the next one stored.
   */
  async candidate(): Promise<EdgeCandidate | undefined> {
    const edge = await this.#edges.read();
    if (edge === undefined) return undefined;
    if (edge === 'unreadable' || !edgeSignedBy(edge, await this.#keys.key())) {
      this.#logger.warn('the stored audit tree edge is not signed by the current audit key: not used');
      return undefined;
    }
    this.#storedSize = edge.frontier.size;
    return { source: 'stored edge', frontier: edge.frontier, rootHash: edge.rootHash };
  }

  /** The candidate was checked against the log and did not match: the next store replaces it whatever its size. */
  rejected(): void {
    this.#storedSize = -1;
  }

  /**
   * Stores the tree's right edge, signed, and the subtree roots completed below it (first: the edge never names a
   * size the stored subtrees fall short of), if the tree grew since the edge last stored. With `sync`, the tree is
   * caught up with what the store told first. One at a time; a failure is logged, and costs the next start a
   * longer read.
   */
  store(log: LogTree, { sync }: { sync: boolean }): Promise<void> {
    const run = this.#storing.then(async () => {
      // Its subtrees are stored with the edge, once they are in: a rebuild under way would hold a shutdown up.
      if (log.tree.backfilling) return;
      if (sync) await log.sync();
      // The edge and its root together, before anything else is awaited: the tree grows meanwhile.
      const frontier = log.frontier();
      if (frontier.size <= this.#storedSize || frontier.size === 0) return;
      const rootHash = log.tree.root().toString('hex');
      const key = await this.#keys.key();
      await log.storeSubtrees(frontier.size);
      await this.#edges.write(signEdge(key, frontier, rootHash));
      this.#storedSize = frontier.size;
    });
    this.#storing = run.catch((err: unknown) => this.#logger.error({ err }, 'audit tree edge not stored'));
    return this.#storing;
  }
}
