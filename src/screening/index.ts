export type { ImportOutcome } from './catalog.js';
export type { AmlEvent, CheckKind, CheckStatus, ListFormat, ListVersion } from './events.js';
export { LIST_FORMATS } from './formats.js';
export type { AdverseMediaItem } from './payloads.js';
export { amlProjection } from './projection.js';
export {
  migrateScreeningFiles,
  ScreeningService,
  type CheckView,
  type ScreenQuery,
  type ScreeningActor,
  type SubmitRequest,
} from './service.js';
