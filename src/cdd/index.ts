export { cddCustomersProjection, type BySubject } from './customer-projection.js';
export type { CddActor, CustomerView } from './customers.js';
export type { CddEvent, CustomerEvent, RequestEvent, ScheduleEvent } from './events.js';
export type { CaseOpening, CasesPort, ScreeningPort } from './ports.js';
export { customerReadShape } from './read-shape.js';
export { cddRequestsProjection } from './request-projection.js';
export type { CddRequestItem, Review, ReviewedMatch } from './requests.js';
export { customerName } from './names.js';
export { customerRiskSchema } from './risk/schema.js';
export type { ScheduledWorkflow } from './scheduler.js';
export {
  CorporatePatchSchema,
  CorporateSchema,
  CustomerInputSchema,
  IndividualPatchSchema,
  IndividualSchema,
  type CustomerInput,
  type CustomerPatch,
} from './schema.js';
export { CddService, type CddDeps } from './service.js';
export * from './types.js';
export type { Workflow } from './workflows.js';
