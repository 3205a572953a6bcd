import { ConflictError, ValidationError } from '../errors.js';
import type { Decider } from '../store/index.js';
import type { PartitionEvent } from './events.js';
import { isPartitionCount, MAX_PARTITIONS } from './key.js';

export type PartitionCommand = { type: 'FixPartitions'; data: { count: number } };

/** The recorded count, if any. */
export interface PartitionState {
  readonly count: number | undefined;
}

/**
 * The count is recorded once: the same count again changes nothing, another is refused, since every subject's
 * partition (key.ts) would move and with it the state its partition holds.
 */
export const partitionDecider: Decider<PartitionState, PartitionCommand, PartitionEvent> = {
  initialState: () => ({ count: undefined }),
  decide(command, state) {
    const { count } = command.data;
    if (!isPartitionCount(count))
      throw new ValidationError(`partitions must be a whole number from 1 to ${MAX_PARTITIONS}, got ${count}`, 'partitions');
    if (state.count === count) return [];
    if (state.count !== undefined)
      throw new ConflictError(
        `partitions: this business was set up with ${state.count} partitions, and a partition count never changes (asked for ${count})`,
      );
    return [{ type: 'PartitionsFixed', data: { count } }];
  },
  evolve: (_state, event) => ({ count: event.data.count }),
};
