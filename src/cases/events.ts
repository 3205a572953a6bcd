import type { UserRef } from '../users/index.js';
import type { CaseAlert, CaseGrouping } from './alerts.js';
import { inStreamId } from '../stream-ids.js';

export const CASE_MODULES = ['transaction-monitoring', 'aml', 'cdd', 'kyc', 'reporting'] as const;
export type CaseModule = (typeof CASE_MODULES)[number];

export const CASE_PRIORITIES = ['low', 'medium', 'high', 'critical'] as const;
export type CasePriority = (typeof CASE_PRIORITIES)[number];

export const CASE_STATUSES = ['open', 'in progress', 'pending review', 'resolved', 'closed'] as const;
export type CaseStatus = (typeof CASE_STATUSES)[number];

/** How a closed case ended: the investigator's conclusion, which four eyes may have to approve. */
export const CASE_DISPOSITIONS = ['false positive', 'reported', 'customer exited', 'no further action'] as const;
export type CaseDisposition = (typeof CASE_DISPOSITIONS)[number];

/** A disposition as stored: events written when `reported` was called `reported to FIU` read as `reported`. */
export const dispositionOf = (stored: string): CaseDisposition => (stored === 'reported to FIU' ? 'reported' : (stored as CaseDisposition));

/** A disposition as people read it: both spellings of the FIU report read "reported to FIU". */
export const dispositionLabel = (value: string): string => (value === 'reported' ? 'reported to FIU' : value);

/** The flagged thing a case investigates: a transaction, a customer, a screening request. */
export interface CaseRecord {
  id: string;
  type: string;
  name: string;
}

/** A stored file as a case or comment refers to it; the bytes live in the upload store. */
export interface AttachmentRef {
  key: string;
  contentType: string;
  size: number;
  sha256: string;
}

/**
 * Every case event names who caused it (`by`, a user snapshot or the system actor), because each one becomes an
 * entry of the case's activity log; the entry's id and date are the stored event's id and recording time.
 */
interface Caused {
  caseId: string;
  by: UserRef;
}

export type CaseEvent =
  | {
      type: 'CaseOpened';
      data: Caused & {
        module: CaseModule;
        record: CaseRecord;
        title: string;
        description: string;
        priority: CasePriority;
        assignedTo: UserRef | null;
        dueDate: string | null;
        tasks: { _id: string; text: string }[];
        /** The grouping key of a case opened by an alert (`user:ID`, `account:ID`); absent for other openings. */
        subject?: string;
      };
    }
  /** A decision that was not approved joined the case (or opened it, right after CaseOpened). */
  | { type: 'CaseAlertAdded'; data: Caused & { alert: CaseAlert } }
  | { type: 'CaseOccurrenceLogged'; data: Caused & { title: string; description: string; priority: CasePriority } }
  | { type: 'CaseStatusChanged'; data: Caused & { from: CaseStatus; to: CaseStatus } }
  | { type: 'CasePriorityChanged'; data: Caused & { from: CasePriority; to: CasePriority } }
  | { type: 'CaseAssigned'; data: Caused & { assignee: UserRef } }
  | { type: 'CaseDueDateChanged'; data: Caused & { dueDate: string | null } }
  | { type: 'CaseEscalationChanged'; data: Caused & { isEscalated: boolean } }
  | {
      type: 'CaseCommentAdded';
      data: Caused & { commentId: string; text: string; attachments: AttachmentRef[]; taggedUsers: UserRef[] };
    }
  | { type: 'CaseTaskAdded'; data: Caused & { taskId: string; text: string } }
  | { type: 'CaseTaskStatusChanged'; data: Caused & { taskId: string; text: string; status: boolean } }
  | { type: 'CaseAttachmentAdded'; data: Caused & { attachmentId: string; attachment: AttachmentRef } }
  /**
   * Four eyes of the case settings' `fourEyes` (events written before the approvals policy took it over): `by`
   * asked to close with a disposition; a second person approves or rejects.
   */
  | { type: 'CaseClosureRequested'; data: Caused & { disposition: CaseDisposition } }
  | { type: 'CaseClosureRejected'; data: Caused & { disposition: CaseDisposition; requestedBy: UserRef } }
  /** The disposition a case closes with: `requestedBy` proposed it, `by` closed it (the same person without four eyes). */
  | { type: 'CaseDispositionSet'; data: Caused & { disposition: CaseDisposition; requestedBy: UserRef } };

/**
 * A business's case settings, each event carrying all of them. `groupBy` picks an alert's subject; a subject's open case older than
 * `freshCaseAfterHours` takes no more alerts, the next one opens a fresh case (null: never). Events written before
 * a setting existed lack it, and read with its default.
 */
export interface CaseSettings {
  groupBy: CaseGrouping;
  freshCaseAfterHours: number | null;
  /** The IANA time zone the console shows the business's times in. */
  timeZone: string;
  /** Hours from opening to a case's due date, by priority, for a case without a due date of its own. */
  dueHours: Record<CasePriority, number>;
}
export const DEFAULT_DUE_HOURS: Record<CasePriority, number> = { critical: 24, high: 72, medium: 168, low: 720 };
export const DEFAULT_CASE_SETTINGS: CaseSettings = {
  groupBy: 'customer',
  freshCaseAfterHours: null,
  timeZone: 'UTC',
  dueHours: DEFAULT_DUE_HOURS,
};
/**
 * `fourEyes`, in events written before the approvals policy took it over, put closing under four eyes: the policy's
 * read model folds it in (approvals/policy.ts), and the settings read here ignore it.
 */
export type CaseSettingsEvent = { type: 'CaseSettingsChanged'; data: Partial<CaseSettings> & { fourEyes?: boolean } };
export const caseSettingsStream = (businessId: string) => `casesettings-${inStreamId(businessId)}`;

/** Written with each opening of a case for a subject: this stream's version guards "one open case per subject". */
export type CaseSubjectEvent = { type: 'CaseSubjectLinked'; data: { caseId: string; subject: string; openedAt: string } };
export const caseSubjectStream = (businessId: string, subject: string) => `casesubject-${inStreamId(businessId)}-${subject}`;

/** Written next to a new case's opening, on a per-record stream whose version guards "one open case per record". */
export type CaseRecordEvent = { type: 'CaseRecordLinked'; data: { caseId: string; record: CaseRecord } };

export const CASE_EVENT_TYPES = [
  'CaseOpened',
  'CaseAlertAdded',
  'CaseOccurrenceLogged',
  'CaseStatusChanged',
  'CasePriorityChanged',
  'CaseAssigned',
  'CaseDueDateChanged',
  'CaseEscalationChanged',
  'CaseCommentAdded',
  'CaseTaskAdded',
  'CaseTaskStatusChanged',
  'CaseAttachmentAdded',
  'CaseClosureRequested',
  'CaseClosureRejected',
  'CaseDispositionSet',
] as const satisfies readonly CaseEvent['type'][];

export const caseStream = (businessId: string, caseId: string) => `case-${inStreamId(businessId)}-${caseId}`;
export const caseRecordStream = (businessId: string, record: Pick<CaseRecord, 'type' | 'id'>) =>
  `caserecord-${inStreamId(businessId)}-${record.type}-${record.id}`;
/** The subject of a case no alert opened: its record. */
export const subjectKeyOf = (record: Pick<CaseRecord, 'type' | 'id'>) => `${record.type}:${record.id}`;

/** The actor of changes no person made (automatic openings, unbound callers of the library API). */
export const SYSTEM_ACTOR: UserRef = { _id: 'system', firstName: 'System', lastName: '' };
