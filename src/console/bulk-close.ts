import type { Context } from 'hono';
import { closeUnderPolicy, isWaiting } from '../approvals/case-closing.js';
import { ValidationError } from '../errors.js';
import { personOf } from './approvals.js';
import type { ConsoleEnv } from './env.js';
import { actorOf } from './forms.js';

/**
 * Closes the selected cases with one disposition and one rationale, which the console requires, through the
 * business's policy (approvals/case-closing.ts): closed at once, or each a request waiting for a second person.
 */
export async function closeCases(
  c: Context<ConsoleEnv>,
  caseIds: readonly string[],
  disposition: string,
  rationale: string,
): Promise<{ done: number; refused: number; waiting: number; results: Awaited<ReturnType<typeof closeUnderPolicy>> }> {
  if (!rationale) throw new ValidationError('rationale is required to close', 'rationale');
  const { engine } = c.var;
  const results = await closeUnderPolicy(engine, actorOf(c), personOf(c), { caseIds: [...caseIds] }, { disposition, note: rationale });
  const waiting = results.filter(isWaiting).length;
  const done = results.filter((r) => r.ok).length - waiting;
  return { done, refused: results.length - done - waiting, waiting, results };
}
