export { AuditService, type AuditOptions, type TreeHeadOutlets } from './service.js';
export type { AuditEvent, SigningKeyActivatedData } from './events.js';
export { chainHashOf, ProofError, type InclusionProof, type StoredForm } from './inclusion.js';
export { treeHeadMessage, type Checkpoint, type SignedTreeHead } from './tree-head.js';
export { formatAuditReport, parseCheckpoint, type AuditReport, type CheckpointVerdict } from './verify.js';
export { KEY_ENV, KEY_FILE } from './signing-key.js';
export { defaultOrigin } from './checkpoint-text.js';
export { parseWitnessPolicy, type WitnessPolicy } from './witnessing.js';
export type { WitnessStatus } from './service.js';
