import type { Clock } from '../clock.js';
import { ValidationError } from '../errors.js';
import { newId } from '../ids.js';
import type { UserRef } from '../users/index.js';
import type { CaseCommand } from './decider.js';
import { CASE_DISPOSITIONS, type CaseDisposition } from './events.js';

/**
 * The closing command of a case, checked once however many cases it is given to; a note is each case's own
 * comment. Whether closing needs a second person is the approvals policy's to say, before the command is given.
 */
export function closeCommand(clock: Clock, by: UserRef, disposition: string, note?: string): (caseId: string) => CaseCommand {
  if (!(CASE_DISPOSITIONS as readonly string[]).includes(disposition))
    throw new ValidationError(`disposition must be one of: ${CASE_DISPOSITIONS.join(', ')}`, 'disposition');
  return (caseId) => ({
    type: 'CloseWithDisposition',
    data: {
      caseId,
      by,
      disposition: disposition as CaseDisposition,
      ...(note ? { note: { commentId: newId(clock.now()), text: note } } : {}),
    },
  });
}
