import type {
  Check,
  Confirmation,
  CustomerDoc,
  CustomerRiskSummary,
  MatchKind,
  OverallRiskLevel,
  RequestMatches,
  Subject,
  WorkflowRef,
} from './types.js';
import type { CustomerType } from './schema.js';
import type { WorkflowPlan } from './workflows.js';
import { checkWellFormed } from '../validation-messages.js';

/** Customer streams hold what the business told us and what reviewers confirmed. */
export type CustomerEvent =
  | { type: 'CddCustomerCreated'; data: { customer: CustomerDoc } }
  | { type: 'CddCustomerUpdated'; data: { uniqueId: string; customer: CustomerDoc; changed: string[] } }
  | { type: 'CddCustomerRiskAssessed'; data: { uniqueId: string; summary: CustomerRiskSummary } }
  | {
      type: 'CddScreeningConfirmed';
      data: { uniqueId: string; kind: MatchKind; subject: Subject; confirmation: Confirmation };
    }
  /** A reviewer corrected a `found` review: the confirmation it made no longer stands. */
  | {
      type: 'CddScreeningWithdrawn';
      data: { uniqueId: string; kind: MatchKind; subject: Subject; confirmationId: string; requestId: string; withdrawnAt: string };
    };

/**
 * Request streams are also the job queue: Created without Started is pending work; Started is claimed with an
 * expected version, so exactly one worker runs it; Check events record progress, so a resumed run skips them.
 */
export type RequestEvent =
  | {
      type: 'CddRequestCreated';
      data: {
        requestId: string;
        customerUniqueId: string;
        type: CustomerType;
        workflow: WorkflowRef;
        plan: WorkflowPlan;
        name: string;
        executionId?: string;
      };
    }
  | { type: 'CddRequestStarted'; data: { requestId: string; attempt: number } }
  | {
      type: 'CddCheckRecorded';
      data: { requestId: string; customerUniqueId: string; subject: Subject; check: Check; matches?: Partial<RequestMatches> };
    }
  | { type: 'CddRequestAwaitingConfirmation'; data: { requestId: string } }
  | {
      type: 'CddMatchReviewed';
      data: {
        requestId: string;
        kind: MatchKind;
        index: number;
        status: 'found' | 'not found';
        /** A user id, or `apikey:KEY` for a key bound to no user. */
        reviewedBy: string;
        reviewedAt: string;
        /** How the reviewer is shown (`API key NAME` for a key); absent on reviews recorded before names were. */
        reviewerName?: string | null;
        /** The rationale; mandatory when the review corrects an earlier one. */
        note?: string | null;
        /** The status this review replaced (a correction), or null for the first review. */
        previousStatus?: 'found' | 'not found' | null;
      };
    }
  | { type: 'CddRequestCompleted'; data: { requestId: string; overallRiskLevel: OverallRiskLevel } };

/** Ongoing monitoring: one stream per (customer, workflow) schedule; Fired is claimed like a job. */
export type ScheduleEvent =
  | {
      type: 'CddScheduleCreated';
      data: {
        executionId: string;
        customerUniqueId: string;
        name: string;
        type: CustomerType;
        workflowSlug: string;
        workflowName: string;
        everyDays: number;
        nextRunAt: string;
        /** The request whose start created the schedule; absent on the oldest schedules. */
        requestId?: string;
      };
    }
  | { type: 'CddScheduleFired'; data: { executionId: string; requestId: string; firedAt: string; nextRunAt: string } };

export type CddEvent = CustomerEvent | RequestEvent | ScheduleEvent;

/** A part of a stream id, percent-encoded; ill-formed Unicode (which encodeURIComponent throws on) is refused naming `field`. */
const part = (s: string, field: string) => {
  checkWellFormed(s, [field]);
  return encodeURIComponent(s);
};
export const customerStream = (businessId: string, uniqueId: string) =>
  `cdd-customer/${part(businessId, 'businessId')}/${part(uniqueId, 'uniqueId')}`;
export const requestStream = (requestId: string) => `cdd-request/${requestId}`;
export const scheduleStream = (businessId: string, customerUniqueId: string, slug: string) =>
  `cdd-schedule/${part(businessId, 'businessId')}/${part(customerUniqueId, 'uniqueId')}/${part(slug, 'workflow')}`;
