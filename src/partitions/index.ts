export { partitionDecider, type PartitionCommand, type PartitionState } from './decider.js';
export { partitionsStream, type PartitionEvent } from './events.js';
export {
  DEFAULT_PARTITIONS,
  decisionSubject,
  isPartitionCount,
  MAX_PARTITIONS,
  partitionOf,
  storedPartition,
  type Subject,
  type SubjectFields,
} from './key.js';
export { PartitionCounts } from './counts.js';
export { PartitionService, type PartitionActor } from './service.js';
export { migrateLeases } from './lease-table.js';
export { DEFAULT_LEASE_RENEW_MS, DEFAULT_LEASE_TTL_MS, PartitionLeases, type LeaseOptions, type PartitionOwner } from './leases.js';
export { fairShare, shareMove, type ShareMove } from './share.js';
