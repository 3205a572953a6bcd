export { decisionAnswer } from './answer.js';
export { candidateSources, type BacktestRequest } from './backtest.js';
export { DEFAULT_BACKTEST_LIMITS, type BacktestLimits } from './backtest-limits.js';
export { DECISION_KEYS } from './compact-keys.js';
export { ENGINE_BLACKLIST_RULE } from './decision.js';
export {
  LISTS,
  MONITORING_EVENT_TYPES,
  registerMonitoringUpcasters,
  type Decision,
  type FiredRuleView,
  type ListKind,
  type MonitoringEvent,
} from './events.js';
export type { Actor, CaseAlerter, DecisionObserver } from './pipeline.js';
export { LiveDecisions, type LiveDecision } from './live-decisions.js';
export { monitoringProjection } from './projection.js';
export type { TransactionFacts } from './transaction-facts.js';
export { PARTY_KINDS, partiesOf, type DecisionStats, type DecisionSummary, type Party, type PartyKind } from './decision-index.js';
export { BlacklistBodies, InstantRequestSchema, SaveDeviceSchema, type InstantRequest, type SaveDeviceInput } from './request-schema.js';
export {
  MonitoringService,
  type BlacklistEntry,
  type MonitoringDependencies,
  type MonitoringOptions,
  type StoredTransaction,
} from './service.js';
