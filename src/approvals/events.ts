/** What a business can put under four eyes. Changing the policy itself is always under them. */
export const APPROVAL_ACTIONS = [
  'case.close',
  'report.approve',
  'screening.review',
  'list.add',
  'list.remove',
  'apikey.create',
  'apikey.revoke',
  'ruleset.publish',
  'policy.change',
] as const;
export type ApprovalAction = (typeof APPROVAL_ACTIONS)[number];

export const ACTION_LABELS: Readonly<Record<ApprovalAction, string>> = {
  'case.close': 'Closing a case',
  'report.approve': 'Approving a goAML report (by someone other than its drafter)',
  'screening.review': 'Confirming or dismissing a screening match',
  'list.add': 'Adding a list entry',
  'list.remove': 'Removing a list entry',
  'apikey.create': 'Creating an API key',
  'apikey.revoke': 'Revoking an API key',
  'ruleset.publish': 'Publishing a shadow ruleset',
  'policy.change': 'Changing this policy',
};

/**
 * Who asks or answers. A person signs in; an API key authenticates a machine, not a person, so a request made
 * through the API names the key as its maker, and only a signed-in person approves.
 */
export interface Party {
  kind: 'user' | 'api-key';
  id: string;
  name: string;
}

/** What a request is about, for its place on a timeline (a case's, a customer's) and in the inbox. */
export interface Subject {
  kind: 'case' | 'customer' | 'list' | 'api-key' | 'ruleset' | 'policy';
  id: string;
}

export interface RequestedData {
  requestId: string;
  action: ApprovalAction;
  subject: Subject;
  /** One line saying what takes effect on approval. */
  summary: string;
  /** The action's arguments, applied as they are on approval. */
  payload: Record<string, unknown>;
  maker: Party;
  reason: string;
}

/**
 * A four-eyes request's life: asked by a maker, then approved or rejected by a checker who is someone else. An
 * approval is recorded before its effect runs, so that two approvals cannot both apply it; an effect that then
 * fails (the case was closed meanwhile, say) is recorded as failed.
 */
export type ApprovalEvent =
  | { type: 'ApprovalRequested'; data: RequestedData }
  | { type: 'ApprovalGranted'; data: { requestId: string; checker: Party; reason: string } }
  | { type: 'ApprovalRejected'; data: { requestId: string; checker: Party; reason: string } }
  | { type: 'ApprovalFailed'; data: { requestId: string; error: string } };

/**
 * The business's policy: the actions that take a second person. A policy set with `supersedesCaseFourEyes` is the
 * whole policy; one without it (written before the case settings' `fourEyes` became part of the policy) leaves
 * that setting's actions to the setting (policy.ts).
 */
export type ApprovalPolicyEvent = {
  type: 'ApprovalPolicySet';
  data: { actions: ApprovalAction[]; requestId: string; supersedesCaseFourEyes?: true };
};

/** What the case settings' `fourEyes`, in events written before the policy took it over, put under four eyes. */
export const CASE_FOUR_EYES_ACTIONS: readonly ApprovalAction[] = ['case.close', 'report.approve'];

export const approvalStream = (businessId: string, requestId: string) => `approval-${businessId}-${requestId}`;
export const policyStream = (businessId: string) => `approval-policy-${businessId}`;
