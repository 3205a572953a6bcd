export { partitionDecider, type PartitionCommand, type PartitionState } from './decider.js';
export { partitionsStream, type PartitionEvent } from './events.js';
export {
  DEFAULT_PARTITIONS,
  decisionSubject,
  isPartitionCount,
  MAX_PARTITIONS,
  partitionOf,
  type Subject,
  type SubjectFields,
} from './key.js';
export { PartitionService, type PartitionActor } from './service.js';
