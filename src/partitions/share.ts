// What one node does to its leases of one business at a renewal: pure, so the fairness is tested apart from SQL.

/** A node's fair share of `count` partitions among `liveNodes`: rounded up, so that the shares together cover them all. */
export const fairShare = (count: number, liveNodes: number): number => Math.ceil(count / Math.max(1, liveNodes));

export interface ShareMove {
  /** Partitions this node gives up, the highest first held (so a node keeps the ones it had longest in view). */
  release: number[];
  /** Free partitions it tries to take, from its own starting point, so that nodes claiming at once seldom collide. */
  claim: number[];
}

/**
 * `mine`: the partitions this node holds; `taken`: every partition some live node holds (its own included);
 * `index`: this node's place among the `liveNodes`, sorted by id.
 */
export function shareMove(count: number, liveNodes: number, index: number, mine: readonly number[], taken: ReadonlySet<number>): ShareMove {
  const share = fairShare(count, liveNodes);
  if (mine.length > share) return { release: [...mine].sort((a, b) => b - a).slice(0, mine.length - share), claim: [] };
  const claim: number[] = [];
  const start = Math.floor((index * count) / Math.max(1, liveNodes));
  for (let i = 0; i < count && mine.length + claim.length < share; i++) {
    const partition = (start + i) % count;
    if (!taken.has(partition)) claim.push(partition);
  }
  return { release: [], claim };
}
