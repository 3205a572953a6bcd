export { ApprovalService, type ApprovalRow, type Effect, type Gated, type NewRequest, isApprovalAction } from './service.js';
export { ACTION_LABELS, APPROVAL_ACTIONS, CASE_FOUR_EYES_ACTIONS, type ApprovalAction, type Party, type Subject } from './events.js';
export { approvalsProjection } from './projection.js';
export { approvalPolicyProjection } from './policy.js';
