export { CASE_GROUPINGS, type AlertSubjects, type CaseAlert, type CaseGrouping } from './alerts.js';
export { CASE_TRANSITIONS, caseDecider, isActive, type CaseCommand, type CaseState } from './decider.js';
export {
  CASE_DISPOSITIONS,
  CASE_MODULES,
  CASE_PRIORITIES,
  CASE_STATUSES,
  SYSTEM_ACTOR,
  caseStream,
  caseSubjectStream,
  dispositionLabel,
  dispositionOf,
  type CaseSettings,
  type AttachmentRef,
  type CaseDisposition,
  type CaseEvent,
  type CaseModule,
  type CasePriority,
  type CaseRecord,
  type CaseStatus,
} from './events.js';
export type { AlertInput, AlertWrites } from './grouping.js';
export { casesProjection, type CaseTables } from './projection.js';
export { caseSummariesProjection } from './summaries.js';
export {
  CASE_SORTS,
  LISTED_LATEST,
  type Case,
  type CaseAlertEntry,
  type CaseAttachment,
  type CaseComment,
  type CaseFilters,
  type CaseLogEntry,
  type CaseSort,
  type CaseTask,
} from './read-model.js';
export type { CaseActor } from './actors.js';
export { BULK_LIMIT, type BulkAction, type BulkResult, type BulkSelection } from './bulk.js';
export { CaseService } from './service.js';
export type { CaseUpdate, ListedCase, NewCaseInput, OpeningInput } from './inputs.js';
