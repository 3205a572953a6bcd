// Each business's partition count as the log records it, known in memory, so that the instant path places every
// decision in its partition with no read: the partition goes into the decision's metadata on every engine, leasing
// or not, and the read models key their rows by it (docs/postgres.md "Distribution columns").
import type { EventStore, StoredEvent } from '../store/index.js';
import type { PartitionEvent } from './events.js';
import { DEFAULT_PARTITIONS, decisionSubject, partitionOf, type SubjectFields } from './key.js';

const PARTITIONS_FIXED: PartitionEvent['type'] = 'PartitionsFixed';

export class PartitionCounts {
  readonly #counts = new Map<string, number>();
  readonly #fallback: number;
  readonly #unsubscribe: () => void;

  /**
   * `fallback`: the count of a business the log records none for (set up before counts were), the one a start
   * with the same PARTITIONS setting would record for it (PartitionService.backfill), so that its partitions stay.
   */
  private constructor(store: EventStore, fallback: number) {
    this.#fallback = fallback;
    this.#unsubscribe = store.subscribe((events) => {
      for (const event of events) if (event.type === PARTITIONS_FIXED) this.#learn(event);
    });
  }

  /** Subscribes first, then reads the counts recorded so far, so that none committed in between is missed. */
  static async load(store: EventStore, fallback = DEFAULT_PARTITIONS): Promise<PartitionCounts> {
    const counts = new PartitionCounts(store, fallback);
    // Paged: readAll stops at a page, and a count missed would place a business's decisions under the fallback.
    for await (const event of store.iterateAll({ types: [PARTITIONS_FIXED] })) counts.#learn(event);
    return counts;
  }

  /** The business's partition count: recorded, else the fallback. */
  count(businessId: string): number {
    return this.#counts.get(businessId) ?? this.#fallback;
  }

  /** The business's partition count, once the log records one. */
  recorded(businessId: string): number | undefined {
    return this.#counts.get(businessId);
  }

  /** The businesses whose count the log records, with it. */
  entries(): IterableIterator<[string, number]> {
    return this.#counts.entries();
  }

  /** The partition a decision of the business with this request belongs to. */
  partitionOf(businessId: string, request: SubjectFields): number {
    return partitionOf(decisionSubject(request), this.count(businessId));
  }

  close(): void {
    this.#unsubscribe();
  }

  #learn(event: StoredEvent): void {
    this.#counts.set(event.metadata.businessId, (event.data as PartitionEvent['data']).count);
  }
}
