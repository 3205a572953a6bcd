import { inStreamId } from '../stream-ids.js';

/** A business's partition count, recorded once at its set-up (decider.ts refuses any other count after). */
export type PartitionEvent = { type: 'PartitionsFixed'; data: { count: number } };

export const partitionsStream = (businessId: string): string => `partitions-${inStreamId(businessId)}`;
