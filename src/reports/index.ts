export type { CasesPort, CustomersPort, MonitoringPort, ReportedTransaction } from './ports.js';
export { REPORT_KINDS, REPORT_STATUSES, type MissingField, type ReportingSettings, type ReportKind, type ReportStatus } from './events.js';
export { loadFius, type Fiu } from './fiu.js';
export { reportsProjection } from './projection.js';
export type { ReportFilters, ReportSummary } from './read-model.js';
export { ReportingSettingsSchema, type ReportingSettingsInput } from './settings.js';
export { ReportService, isReportedDisposition, type ReportActor, type ReportPorts, type ReportView } from './service.js';
export { DEFAULT_THRESHOLDS } from './threshold.js';
