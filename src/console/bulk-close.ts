import type { Context } from 'hono';
import { CASE_DISPOSITIONS, isActive } from '../cases/index.js';
import { dispositionLabel } from './components.js';
import type { ConsoleEnv } from './env.js';
import { actorOf } from './forms.js';
import { personOf } from './approvals.js';
import { ValidationError } from '../errors.js';
import { NotFoundError } from '../errors.js';

/**
 * Closes the selected cases with one disposition and one rationale. Under the business's policy each active case
 * becomes a request of its own for a second person (approved or rejected case by case); otherwise the cases close
 * at once through the cases domain's bulk action. A case closed already or not of the business is refused.
 */
export async function closeCases(
  c: Context<ConsoleEnv>,
  caseIds: readonly string[],
  disposition: string,
  rationale: string,
): Promise<{ done: number; refused: number; waiting: number }> {
  if (!rationale) throw new ValidationError('rationale is required to close', 'rationale');
  if (!(CASE_DISPOSITIONS as readonly string[]).includes(disposition))
    throw new ValidationError(`disposition must be one of: ${CASE_DISPOSITIONS.join(', ')}`, 'disposition');
  const { engine, session } = c.var;
  const businessId = session.businessId;
  if (!(await engine.approvals.needsApproval(businessId, 'case.close'))) {
    const outcomes = await engine.cases.bulk(actorOf(c), { caseIds: [...caseIds] }, { type: 'close', disposition, note: rationale });
    const done = outcomes.filter((o) => o.ok).length;
    return { done, refused: outcomes.length - done, waiting: 0 };
  }
  let waiting = 0;
  for (const caseId of new Set(caseIds)) {
    const k = await engine.cases.get(businessId, caseId).catch((error: unknown) => {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    });
    if (!k || !isActive(k.status)) continue;
    await engine.approvals.request(businessId, personOf(c), {
      action: 'case.close',
      subject: { kind: 'case', id: caseId },
      summary: `Close case “${k.title}” as ${dispositionLabel(disposition)}`,
      payload: { caseId, disposition, note: rationale },
      reason: rationale,
    });
    waiting++;
  }
  return { done: 0, refused: new Set(caseIds).size - waiting, waiting };
}
