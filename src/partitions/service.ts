import { ConflictError } from '../errors.js';
import { fold, handleCommand, type EventStore } from '../store/index.js';
import { partitionDecider } from './decider.js';
import { partitionsStream } from './events.js';
import { DEFAULT_PARTITIONS } from './key.js';

export interface PartitionActor {
  businessId: string;
  userId?: string;
  requestId?: string;
}

/** Each business's partition count: recorded at set-up, DEFAULT_PARTITIONS where none was. */
export class PartitionService {
  constructor(private readonly store: EventStore) {}

  /** Records the count (default DEFAULT_PARTITIONS); the same count again is a no-op, another a ConflictError. */
  async fix(actor: PartitionActor, count = DEFAULT_PARTITIONS): Promise<{ count: number; recorded: boolean }> {
    const { events } = await handleCommand(
      this.store,
      partitionsStream(actor.businessId),
      partitionDecider,
      { type: 'FixPartitions', data: { count } },
      { businessId: actor.businessId, actor: actor.userId ?? 'system', requestId: actor.requestId },
    );
    return { count, recorded: events.length > 0 };
  }

  /**
   * Records `count` for each business that has none recorded (set up before counts were), so that nodes lease its
   * partitions; a business with a count keeps it. Returns the businesses it recorded a count for.
   */
  async backfill(businessIds: Iterable<string>, count = DEFAULT_PARTITIONS): Promise<string[]> {
    const recorded: string[] = [];
    for (const businessId of businessIds) {
      if (fold(partitionDecider, await this.store.readStream(partitionsStream(businessId))).count !== undefined) continue;
      try {
        if ((await this.fix({ businessId }, count)).recorded) recorded.push(businessId);
      } catch (error) {
        // Another node starting at once recorded its own count first: the business has one, which is what is asked.
        if (!(error instanceof ConflictError)) throw error;
      }
    }
    return recorded;
  }

  /** The business's partition count. */
  async count(businessId: string): Promise<number> {
    return fold(partitionDecider, await this.store.readStream(partitionsStream(businessId))).count ?? DEFAULT_PARTITIONS;
  }
}
