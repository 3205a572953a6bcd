import type { AuthService } from '../auth/index.js';
import type { CaseService } from '../cases/index.js';
import type { CddService } from '../cdd/index.js';
import type { MonitoringService } from '../monitoring/index.js';
import type { ShadowService } from '../monitoring/shadow/index.js';
import type { ApprovalService, EffectContext } from './service.js';

export interface EffectServices {
  auth: AuthService;
  cases: CaseService;
  cdd: CddService;
  monitoring: MonitoringService;
  shadows: ShadowService;
}

const str = (payload: Record<string, unknown>, key: string) => (typeof payload[key] === 'string' ? (payload[key] as string) : '');

/** The checker acts, on the maker's arguments: the affected stream's log names the checker, its note the maker. */
const checkerActor = (context: EffectContext) => ({ businessId: context.businessId, userId: context.checker.id });
const both = (context: EffectContext) => `requested by ${context.maker.name}, approved by ${context.checker.name}`;

/** What each action does once approved: the same service call the console or API would have made at once. */
export function registerApprovalEffects(approvals: ApprovalService, services: EffectServices): void {
  approvals.register('case.close', async (payload, context) => {
    const caseId = str(payload, 'caseId');
    const disposition = str(payload, 'disposition');
    const note = [str(payload, 'note'), `(${both(context)})`].filter(Boolean).join(' ');
    return services.cases.closeWithDisposition(checkerActor(context), caseId, disposition, note);
  });
  approvals.register('screening.review', (payload, context) =>
    services.cdd.requests.review(checkerActor(context), str(payload, 'requestId'), {
      type: str(payload, 'type') as never,
      status: str(payload, 'status') === 'found' ? 'found' : 'not found',
      index: Number(payload.index),
      note: `${str(payload, 'note')} (${both(context)})`,
    }),
  );
  approvals.register('list.add', (payload, context) =>
    services.monitoring.addToBlacklist(checkerActor(context), str(payload, 'list') as never, str(payload, 'value')),
  );
  approvals.register('list.remove', (payload, context) =>
    services.monitoring.removeFromBlacklist(checkerActor(context), str(payload, 'list') as never, str(payload, 'value')),
  );
  approvals.register('apikey.create', (payload, context) =>
    services.auth.issue({ name: str(payload, 'name'), businessId: context.businessId }, checkerActor(context)),
  );
  approvals.register('ruleset.publish', (payload, context) => services.shadows.publish(checkerActor(context), str(payload, 'shadowId')));
  approvals.register('apikey.revoke', (payload, context) => services.auth.revoke(str(payload, 'apiKey'), checkerActor(context)));
}
