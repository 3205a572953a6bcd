import type { XmlNode } from './xml.js';
import { inStreamId } from '../stream-ids.js';

export const REPORT_KINDS = ['str', 'threshold'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];

export const REPORT_STATUSES = ['draft', 'approved', 'submitted', 'acknowledged', 'rejected'] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];

/** Mandatory goAML data the engine's records lack: the element's path in the report, and what to fill in where. */
export interface MissingField {
  field: string;
  message: string;
}

/** What a draft holds: the goAML document built from the records as they were, and what it still lacks. */
export interface Draft {
  reportId: string;
  kind: ReportKind;
  /** The case an STR reports; null for a threshold batch. */
  caseId: string | null;
  /** The day (YYYY-MM-DD) a threshold batch covers; null for an STR. */
  date: string | null;
  /** 1 for a first report; a corrected resubmission is one more than the report it corrects. */
  version: number;
  /** The rejected report this one corrects. */
  correctionOf: string | null;
  /** The FIU configuration (code lists) the document was built with: src/reports/fiu/<fiu>.json. */
  fiu: string;
  transactionIds: string[];
  document: XmlNode;
  missing: MissingField[];
  /** Who drafted it (an actor id): under four eyes someone else approves. */
  by: string;
}

export type ReportEvent =
  /** A new report, or a draft built again from the records (after missing data was filled in). */
  | { type: 'ReportDrafted'; data: Draft }
  | { type: 'ReportApproved'; data: { reportId: string; by: string } }
  /** The file left for the FIU: downloaded to upload by hand, or sent. */
  | { type: 'ReportSubmitted'; data: { reportId: string; by: string; via: 'download' | 'sent' } }
  | { type: 'ReportAcknowledged'; data: { reportId: string; by: string; fiuReference: string } }
  | { type: 'ReportRejected'; data: { reportId: string; by: string; reason: string; fiuReference: string | null } };

export const REPORT_EVENT_TYPES = [
  'ReportDrafted',
  'ReportApproved',
  'ReportSubmitted',
  'ReportAcknowledged',
  'ReportRejected',
] as const satisfies readonly ReportEvent['type'][];

/** Business ids never contain '-', so the business is everything between the first and second dash. */
export const reportStream = (businessId: string, reportId: string) => `report-${inStreamId(businessId)}-${reportId}`;

/** What a report reports: a case (an STR) or a day (a threshold batch). */
export type ReportSubject = { caseId: string } | { date: string };

/**
 * A report now stands for its case or day. Appended at the version read, in the same append as the report's
 * draft, so of two concurrent drafts of one case only one is recorded: the subject's stream decides, not a read model.
 */
export type ReportSubjectEvent = { type: 'ReportSubjectClaimed'; data: { reportId: string } };

/** One stream per case's report and per day's threshold report. */
export const reportSubjectStream = (businessId: string, of: ReportSubject) =>
  'caseId' in of ? `reportsubject-${inStreamId(businessId)}-case-${of.caseId}` : `reportsubject-${inStreamId(businessId)}-day-${of.date}`;

/** The person the FIU knows as the business's reporting officer. */
export interface ReportingPerson {
  firstName: string;
  lastName: string;
  email?: string;
  phone?: string;
  occupation?: string;
}

/** A business's goAML settings: who it is at the FIU, which FIU's code lists apply, and its threshold rules. */
export interface ReportingSettings {
  fiu: string;
  rentityId: number;
  branch: string;
  reportingPerson: ReportingPerson;
  /** The business as a financial institution, for the accounts it holds. */
  institution: { name: string; code: string; nonBank: boolean; country: string };
  currency: string;
  /** Decimal strings, in the local currency: transactions at or above are reported in the daily batch. */
  thresholds: { individual: string; corporate: string };
  /** The offset from UTC of the business's day (Nigeria: +60, West Africa Time). */
  utcOffsetMinutes: number;
}

export type ReportingSettingsEvent = { type: 'ReportingConfigured'; data: ReportingSettings };
export const reportingSettingsStream = (businessId: string) => `reportingsettings-${inStreamId(businessId)}`;
