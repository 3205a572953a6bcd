// Which deciding thread decides a partition, and what one thread holds: a static PartitionHolding
// (partition-follow.ts) for the threads of one process, as leases are for the nodes of several.
import { decisionSubject, partitionOf, type SubjectFields } from '../partitions/index.js';
import type { PartitionHolding } from './partition-follow.js';

/** The most deciding threads an engine runs (DECISION_THREADS): more than the cores only add switching. */
export const MAX_DECISION_THREADS = 64;

/** Thread `index` of `threads` decides the partitions p of every business with p mod threads = index. */
export const threadOfPartition = (partition: number, threads: number): number => partition % threads;

/** A decision's partition, for a business of `count` partitions (DEFAULT_PARTITIONS where none is recorded). */
export const decisionPartition = (request: SubjectFields, count: number): number => partitionOf(decisionSubject(request), count);

/**
 * Thread `index`'s share of every business's partitions. The engine's thread tells it each business's count with
 * the business's first decision (and any later change); the follower then builds that business's share.
 */
export class ThreadShare implements PartitionHolding {
  readonly #counts = new Map<string, number>();
  readonly #listeners = new Set<() => void>();
  /** Requests by the partition the router sent them for, until decided. */
  readonly #placed = new WeakMap<SubjectFields, number>();

  constructor(
    readonly index: number,
    readonly threads: number,
    counts: Iterable<readonly [string, number]> = [],
  ) {
    for (const [businessId, count] of counts) this.#counts.set(businessId, count);
  }

  /** The business's count as the router computed its partition; a new or changed count rebuilds its share. */
  learn(businessId: string, count: number): void {
    if (this.#counts.get(businessId) === count) return;
    this.#counts.set(businessId, count);
    for (const listener of this.#listeners) listener();
  }

  /** The router computed the request's partition (decision-threads.ts) from the business's count, which it sends too. */
  place(request: SubjectFields, partition: number): void {
    this.#placed.set(request, partition);
  }

  placed(request: SubjectFields): number | undefined {
    return this.#placed.get(request);
  }

  count(businessId: string): number | undefined {
    return this.#counts.get(businessId);
  }

  businesses(): Iterable<string> {
    return this.#counts.keys();
  }

  holds(businessId: string, partition: number): boolean {
    const count = this.#counts.get(businessId);
    return count !== undefined && partition < count && threadOfPartition(partition, this.threads) === this.index;
  }

  mine(businessId: string): Set<number> {
    const mine = new Set<number>();
    const count = this.#counts.get(businessId) ?? 0;
    for (let p = this.index; p < count; p += this.threads) mine.add(p);
    return mine;
  }

  onRenewed(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

/** What the engine's thread holds while threads decide: no partition, so its state keeps lists and devices alone. */
export const HOLDS_NO_PARTITION: PartitionHolding = {
  count: () => undefined,
  businesses: () => [],
  holds: () => false,
  mine: () => new Set(),
  onRenewed: () => () => undefined,
};
