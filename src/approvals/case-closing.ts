import type { BulkResult, BulkSelection, CaseActor, CaseService } from '../cases/index.js';
import { CASE_DISPOSITIONS, CASE_TRANSITIONS, dispositionLabel } from '../cases/index.js';
import { NotFoundError, ValidationError } from '../errors.js';
import type { Party } from './events.js';
import type { ApprovalService } from './service.js';

/** One case's outcome of closing: closed, refused, or recorded as a request a second person answers (`requestId`). */
export type ClosingResult = BulkResult | Waiting;
type Waiting = { caseId: string; ok: true; requestId: string };
export const isWaiting = (result: ClosingResult): result is Waiting => result.ok && 'requestId' in result;

/**
 * Closes cases with one disposition and one note, as the business's policy says: at once through the cases' bulk
 * action, or, when closing takes a second person, each closable case as a request of its own, approved or rejected
 * case by case. The console's bulk close and the API's both come here, so neither can close past the policy.
 */
export async function closeUnderPolicy(
  services: { approvals: ApprovalService; cases: CaseService },
  actor: CaseActor,
  maker: Party,
  selection: BulkSelection,
  closing: { disposition: string; note?: string },
): Promise<ClosingResult[]> {
  const { approvals, cases } = services;
  const { disposition, note } = closing;
  if (!(await approvals.needsApproval(actor.businessId, 'case.close')))
    return cases.bulk(actor, selection, { type: 'close', disposition, note });
  if (!(CASE_DISPOSITIONS as readonly string[]).includes(disposition))
    throw new ValidationError(`disposition must be one of: ${CASE_DISPOSITIONS.join(', ')}`, 'disposition');
  const results: ClosingResult[] = [];
  for (const caseId of await cases.selected(actor.businessId, selection)) {
    const refused = (error: BulkResult & { ok: false }) => results.push(error);
    const k = await cases.get(actor.businessId, caseId).catch((error: unknown) => {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    });
    if (!k) {
      refused({ caseId, ok: false, error: 'not_found', message: 'Case not found' });
      continue;
    }
    if (k.status === 'closed') {
      refused({ caseId, ok: false, error: 'conflict', message: 'Case is closed' });
      continue;
    }
    if (!CASE_TRANSITIONS[k.status].includes('closed')) {
      refused({ caseId, ok: false, error: 'conflict', message: `Case status cannot change from ${k.status} to closed` });
      continue;
    }
    const waiting = await approvals.list(actor.businessId, { pending: true, subject: { kind: 'case', id: caseId } });
    if (waiting.some((r) => r.action === 'case.close')) {
      refused({ caseId, ok: false, error: 'conflict', message: 'A closure already awaits a second person' });
      continue;
    }
    const request = await approvals.request(actor.businessId, maker, {
      action: 'case.close',
      subject: { kind: 'case', id: caseId },
      summary: `Close case “${k.title}” as ${dispositionLabel(disposition)}`,
      payload: { caseId, disposition, ...(note ? { note } : {}) },
      reason: note ?? '',
    });
    results.push({ caseId, ok: true, requestId: request.request_id });
  }
  return results;
}
