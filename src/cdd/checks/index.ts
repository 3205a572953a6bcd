import type { RegistryProvider } from '../../registry/index.js';
import type { ScreeningPort } from '../ports.js';
import type { WorkflowPlan } from '../workflows.js';
import { cacCheck } from './company.js';
import { identityCheck } from './identity.js';
import { screeningCheck, type ScreeningOutcome } from './screening.js';
import type { PlannedCheck } from './subjects.js';

export { planChecks, stepKey, type PlannedCheck, type SubjectFacts } from './subjects.js';

export interface CheckDeps {
  registry: RegistryProvider;
  screening: ScreeningPort;
  now: () => Date;
  newId: () => string;
}

/** Runs one planned check against the real components; a missing registry record is a failed result, not an error. */
export async function runCheck(deps: CheckDeps, step: PlannedCheck, plan: WorkflowPlan): Promise<ScreeningOutcome> {
  const { checkId, facts } = step;
  switch (checkId) {
    case 'pep':
    case 'sanctions':
    case 'adverse media':
      return screeningCheck(deps.screening, checkId, facts, plan, deps.now, deps.newId);
    case 'cac':
      return { check: await cacCheck(deps.registry, facts, plan.threshold, deps.now), matches: {} };
    default:
      return { check: await identityCheck(deps.registry, checkId, facts, plan.threshold, deps.now), matches: {} };
  }
}
