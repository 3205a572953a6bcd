export { CASE_TRANSITIONS, caseDecider, isActive, type CaseCommand, type CaseState } from './decider.js';
export {
  CASE_DISPOSITIONS,
  CASE_MODULES,
  CASE_PRIORITIES,
  CASE_STATUSES,
  SYSTEM_ACTOR,
  caseStream,
  type AttachmentRef,
  type CaseDisposition,
  type CaseEvent,
  type CaseModule,
  type CasePriority,
  type CaseRecord,
  type CaseStatus,
} from './events.js';
export { casesProjection, type CaseTables } from './projection.js';
export {
  CASE_SORTS,
  type Case,
  type CaseAttachment,
  type CaseComment,
  type CaseFilters,
  type CaseLogEntry,
  type CaseSort,
  type CaseTask,
} from './read-model.js';
export { CaseService, type CaseActor, type CaseUpdate, type ListedCase, type NewCaseInput, type OpeningInput } from './service.js';
