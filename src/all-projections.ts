import { approvalPolicyProjection } from './approvals/policy.js';
import { approvalsProjection } from './approvals/projection.js';
import { rulePerformanceProjection } from './monitoring/rule-performance/projection.js';
import { shadowProjection } from './monitoring/shadow/projection.js';
import { amlProjection } from './screening/projection.js';
import { apiKeysProjection } from './auth/projection.js';
import { casesProjection } from './cases/projection.js';
import { caseSummariesProjection } from './cases/summaries.js';
import { cddCustomersProjection } from './cdd/customer-projection.js';
import { cddRequestsProjection } from './cdd/request-projection.js';
import { decisionIndexProjection } from './monitoring/decision-index.js';
import { decisionPositionsProjection, monitoringProjection, transactionReferencesProjection } from './monitoring/projection.js';
import { usersProjection } from './users/projection.js';
import { webhooksProjection } from './webhooks/projection.js';
import { subscribedEndpointsProjection } from './webhooks/endpoints-projection.js';
import { uploadsProjection } from './uploads/projection.js';
import { reportsProjection } from './reports/projection.js';
import { decisionDaysProjection } from './reports/decision-days.js';
import { registerMonitoringUpcasters } from './monitoring/events.js';
import { Upcasters } from './store/index.js';
import { ProjectionRegistry } from './projections/registry.js';
import type { Projection } from './projections/types.js';

/** Every read model of the product. The engine applies them inline; replay --verify rebuilds them all. */
export function allProjections(): Projection[] {
  return [
    apiKeysProjection,
    usersProjection,
    webhooksProjection,
    subscribedEndpointsProjection,
    amlProjection,
    casesProjection,
    caseSummariesProjection,
    uploadsProjection,
    monitoringProjection,
    transactionReferencesProjection,
    decisionPositionsProjection,
    decisionIndexProjection,
    cddCustomersProjection,
    cddRequestsProjection,
    reportsProjection,
    decisionDaysProjection,
    approvalsProjection,
    approvalPolicyProjection,
    rulePerformanceProjection,
    shadowProjection,
  ];
}

/** Every event type's upcasters: what reads of the log (and the projector's deferred passes) lift old events with. */
export function logUpcasters(): Upcasters {
  return registerMonitoringUpcasters(new Upcasters());
}

/** The projector of the engine, and of the event store's writer thread, which builds its own (store/thread-writer.ts). */
export function createProjector(): ProjectionRegistry {
  return new ProjectionRegistry(allProjections(), logUpcasters());
}
