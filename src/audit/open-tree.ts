import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { EventStore, Secrets } from '../store/index.js';
import { EdgeKeeper } from './edge-keeper.js';
import { TREE_HEADS_STREAM } from './events.js';
import { KeyCustody, type KeySources } from './key-custody.js';
import { LogTree, type EdgeCandidate, type Frontier, type TreeOpening } from './log-tree.js';
import { StoredSubtrees } from './subtrees.js';
import type { Checkpoint } from './tree-head.js';

/** A tree head as the log records it: with its compact range, and the tree's right edge at its size. */
export type RecordedHead = Checkpoint & { frontier: Frontier };

/**
 * Opens the log's tree at start from the longer of the right edges recorded with the last head and stored by a
 * server (reading only the events after it; the subtree roots proofs need are read from where they are stored, and
 * checked, in the background), or from the whole log when there is neither or the log matches neither. Either way
 * the log is read a slice at a time, yielding to the event loop. `head` is the last recorded head if the log still
 * matches it.
 */
export async function openTree(
  input: { store: EventStore; db: Kysely<any>; clock: Clock; logger: Logger; secrets: Secrets },
  options: KeySources & { origin: string; catchUp: boolean },
): Promise<{ log: LogTree; unfollow: () => void; opening: TreeOpening; keys: KeyCustody; edges: EdgeKeeper; head?: RecordedHead }> {
  const { store, logger } = input;
  const version = await store.streamVersion(TREE_HEADS_STREAM);
  const [last] = version > 0 ? await store.readStream(TREE_HEADS_STREAM, version) : [];
  const recorded =
    last?.type === 'AuditTreeHeadPublished' && (last.data as Partial<RecordedHead>).frontier ? (last.data as RecordedHead) : undefined;
  const keys = new KeyCustody(input, options);
  const edges = new EdgeKeeper(input.db, keys, logger);
  const candidates: EdgeCandidate[] = [];
  const stored = await edges.candidate();
  if (stored) candidates.push(stored);
  if (recorded) candidates.push({ source: 'recorded edge', frontier: recorded.frontier, rootHash: recorded.rootHash });
  // The longer first; of two as long, the head's.
  candidates.sort((a, b) => b.frontier.size - a.frontier.size || (a.source === 'recorded edge' ? -1 : 1));
  const opened = await LogTree.open({ store, subtrees: new StoredSubtrees(input.db), logger }, candidates, options.catchUp);
  if (opened.rejected.includes('stored edge')) {
    edges.rejected();
    logger.warn('the log no longer matches the stored audit tree edge: not used');
  }
  const headMatches =
    recorded !== undefined &&
    !opened.rejected.includes('recorded edge') &&
    (opened.opening.from === 'recorded edge' || (await opened.log.matches(recorded.frontier, recorded.rootHash)));
  if (recorded && !headMatches)
    logger.warn({ treeSize: recorded.treeSize }, 'the log no longer matches the last recorded tree head: not used');
  logger.info({ ...opened.opening, treeSize: opened.log.tree.size }, 'audit tree opened');
  return { ...opened, keys, edges, head: headMatches ? recorded : undefined };
}
