import type { Clock } from '../clock.js';
import { DomainError, ValidationError } from '../errors.js';
import { handleCommand, type EventStore } from '../store/index.js';
import type { UserRef } from '../users/index.js';
import { caseMetadata, type CaseActor, type CaseActors } from './actors.js';
import { closeCommand } from './closing.js';
import { caseDecider, type CaseCommand } from './decider.js';
import { CASE_PRIORITIES, CASE_STATUSES, caseStream, type CasePriority, type CaseStatus } from './events.js';
import type { CaseFilters, CaseReadModel } from './read-model.js';

/** The most cases one bulk action takes. */
export const BULK_LIMIT = 500;

/** What a bulk action does to each case. Closing goes through `close` only, which takes a disposition. */
export type BulkAction =
  | { type: 'assign'; assignedTo: string }
  | { type: 'status'; status: CaseStatus }
  | { type: 'priority'; priority: CasePriority }
  | { type: 'close'; disposition: string; note?: string };

/** The cases a bulk action applies to: listed by id, or every case the listing filters match. */
export type BulkSelection = { caseIds: string[] } | { filters: CaseFilters };

/** One case's outcome: done, or refused with the error's kind and message; the other cases go on either way. */
export type BulkResult = { caseId: string; ok: true } | { caseId: string; ok: false; error: DomainError['kind']; message: string };

/**
 * One action over many cases, each case its own command and events: a case the action cannot apply to (an
 * illegal transition, a closed case, one not found) is reported in its result and the others go on.
 */
export class BulkActions {
  constructor(
    private readonly store: EventStore,
    private readonly read: CaseReadModel,
    private readonly actors: CaseActors,
    private readonly clock: Clock,
  ) {}

  /** The ids a selection names, each once; more than BULK_LIMIT is refused, naming the field that selected them. */
  async selected(businessId: string, selection: BulkSelection): Promise<string[]> {
    const field = 'caseIds' in selection ? 'caseIds' : 'filters';
    const caseIds =
      'caseIds' in selection ? [...new Set(selection.caseIds)] : await this.read.ids(businessId, selection.filters, BULK_LIMIT + 1);
    if (caseIds.length > BULK_LIMIT)
      throw new ValidationError(`${field} selects more than ${BULK_LIMIT} cases: narrow it, or act in several calls`, field);
    return caseIds;
  }

  async run(actor: CaseActor, selection: BulkSelection, action: BulkAction): Promise<BulkResult[]> {
    const caseIds = await this.selected(actor.businessId, selection);
    const by = await this.actors.by(actor);
    const command = await this.#command(actor, by, action);
    return Promise.all(
      caseIds.map(async (caseId): Promise<BulkResult> => {
        try {
          await handleCommand(this.store, caseStream(actor.businessId, caseId), caseDecider, command(caseId), caseMetadata(actor, by));
          return { caseId, ok: true };
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          return { caseId, ok: false, error: error.kind, message: error.message };
        }
      }),
    );
  }

  /** The command the action gives each case, checked once for all of them. */
  async #command(actor: CaseActor, by: UserRef, action: BulkAction): Promise<(caseId: string) => CaseCommand> {
    switch (action.type) {
      case 'assign': {
        const assignedTo = await this.actors.user(actor.businessId, action.assignedTo, 'action.assignedTo');
        return (caseId) => ({ type: 'UpdateCase', data: { caseId, by, changes: { assignedTo } } });
      }
      case 'status':
        if (!CASE_STATUSES.includes(action.status))
          throw new ValidationError(`action.status must be one of: ${CASE_STATUSES.join(', ')}`, 'action.status');
        // Closing takes a disposition, and the business's policy may put it under four eyes: the close action does both.
        if (action.status === 'closed')
          throw new ValidationError('action.status: close cases with the close action and a disposition', 'action.status');
        return (caseId) => ({ type: 'UpdateCase', data: { caseId, by, changes: { status: action.status } } });
      case 'priority':
        if (!CASE_PRIORITIES.includes(action.priority))
          throw new ValidationError(`action.priority must be one of: ${CASE_PRIORITIES.join(', ')}`, 'action.priority');
        return (caseId) => ({ type: 'UpdateCase', data: { caseId, by, changes: { priority: action.priority } } });
      case 'close':
        return closeCommand(this.clock, by, action.disposition, action.note);
    }
  }
}
