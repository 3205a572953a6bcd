import type { UserRef } from '../users/index.js';

export const CASE_MODULES = ['transaction-monitoring', 'aml', 'cdd', 'kyc', 'reporting'] as const;
export type CaseModule = (typeof CASE_MODULES)[number];

export const CASE_PRIORITIES = ['low', 'medium', 'high', 'critical'] as const;
export type CasePriority = (typeof CASE_PRIORITIES)[number];

export const CASE_STATUSES = ['open', 'in progress', 'pending review', 'resolved', 'closed'] as const;
export type CaseStatus = (typeof CASE_STATUSES)[number];

/** How a closed case ended: the investigator's conclusion, which four eyes may have to approve. */
export const CASE_DISPOSITIONS = ['false positive', 'no further action', 'reported to FIU', 'customer exited'] as const;
export type CaseDisposition = (typeof CASE_DISPOSITIONS)[number];

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
      };
    }
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
  /** Four eyes: `by` asks to close with a disposition; a second person approves or rejects. */
  | { type: 'CaseClosureRequested'; data: Caused & { disposition: CaseDisposition } }
  | { type: 'CaseClosureRejected'; data: Caused & { disposition: CaseDisposition; requestedBy: UserRef } }
  /** The disposition a case closes with: `requestedBy` proposed it, `by` closed it (the same person without four eyes). */
  | { type: 'CaseDispositionSet'; data: Caused & { disposition: CaseDisposition; requestedBy: UserRef } };

/** A business's case settings; four eyes makes closing with a disposition take a second person's approval. */
export type CaseSettingsEvent = { type: 'CaseSettingsChanged'; data: { fourEyes: boolean } };
export const caseSettingsStream = (businessId: string) => `casesettings-${businessId}`;

/** Written next to a new case's opening, on a per-record stream whose version guards "one open case per record". */
export type CaseRecordEvent = { type: 'CaseRecordLinked'; data: { caseId: string; record: CaseRecord } };

export const CASE_EVENT_TYPES = [
  'CaseOpened',
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

export const caseStream = (businessId: string, caseId: string) => `case-${businessId}-${caseId}`;
export const caseRecordStream = (businessId: string, record: Pick<CaseRecord, 'type' | 'id'>) =>
  `caserecord-${businessId}-${record.type}-${record.id}`;

/** The actor of changes no person made (automatic openings, unbound callers of the library API). */
export const SYSTEM_ACTOR: UserRef = { _id: 'system', firstName: 'System', lastName: '' };
