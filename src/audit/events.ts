import type { SignedTreeHead } from './tree-head.js';

/** Why a signing key came into use: the first key of a log, a `rotate-key`, or a different key configured at start. */
export type KeyActivationReason = 'first use' | 'rotation' | 'configured';

export interface SigningKeyActivatedData {
  keyId: string;
  /** SubjectPublicKeyInfo, PEM. */
  publicKey: string;
  previousKeyId: string | null;
  reason: KeyActivationReason;
  activatedAt: string;
}

/** The audit trail's own events: which keys sign tree heads, and the tree heads the engine published. */
export type AuditEvent =
  | { type: 'AuditSigningKeyActivated'; data: SigningKeyActivatedData }
  | { type: 'AuditTreeHeadPublished'; data: SignedTreeHead & { compactRange: string[] } };

export const KEYS_STREAM = 'audit-signing-keys';
export const TREE_HEADS_STREAM = 'audit-tree-heads';
export const AUDIT_METADATA = { businessId: 'system', actor: 'audit' } as const;
