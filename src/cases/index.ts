export { CASE_TRANSITIONS, caseDecider, isActive, type CaseCommand, type CaseState } from './decider.js';
export {
  CASE_MODULES,
  CASE_PRIORITIES,
  CASE_STATUSES,
  SYSTEM_ACTOR,
  caseStream,
  type AttachmentRef,
  type CaseEvent,
  type CaseModule,
  type CasePriority,
  type CaseRecord,
  type CaseStatus,
} from './events.js';
export { casesProjection, type CaseTables } from './projection.js';
export type { Case, CaseAttachment, CaseComment, CaseFilters, CaseLogEntry, CaseTask } from './read-model.js';
export { CaseService, type CaseActor, type CaseUpdate, type ListedCase, type NewCaseInput, type OpeningInput } from './service.js';
