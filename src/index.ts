/** The library API: embed the engine in-process, or serve it over HTTP with createApp. */
export { createEngine, type Engine, type EngineOptions } from './engine.js';
export { createApp } from './http/app.js';
export { ManualClock, systemClock, type Clock } from './clock.js';
export { ConflictError, DomainError, ForbiddenError, NotFoundError, ValidationError } from './errors.js';
export type { EventMetadata, StoredEvent } from './store/index.js';
export type { Decision, FiredRuleView, InstantRequest } from './monitoring/index.js';
export { createLogger, type Logger } from './logger.js';
