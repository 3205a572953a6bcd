export { SHADOW_EVENT_TYPES, type ShadowChange, type ShadowEvent, type ShadowHour, type ShadowStopReason } from './events.js';
export { shadowProjection, type ShadowTables } from './projection.js';
export type { ShadowReport } from './report.js';
export { type ShadowActor, type ShadowInput, ShadowService } from './service.js';
export { formatShadow, publishRequest } from './format.js';
