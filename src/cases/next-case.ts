import { ConflictError } from '../errors.js';
import { handleCommand, type EventStore } from '../store/index.js';
import { caseMetadata, type CaseActor, type CaseActors } from './actors.js';
import { caseDecider } from './decider.js';
import { caseStream } from './events.js';
import type { CaseReadModel } from './read-model.js';
import type { CaseSettingsStore } from './settings.js';

/** Candidates read at once: enough that several people taking cases together each find one. */
const CANDIDATES = 20;
/** Reads of candidates before giving up: each is refused only when others took all of the previous read's cases. */
const ROUNDS = 5;

/**
 * "Next case": the actor's user takes the first active case nobody holds, by priority and then due time. A case
 * someone took meanwhile refuses the take (TakeCase, at the version read), and the next candidate is tried.
 * Returns the case's id, or undefined when no case is waiting.
 */
export async function takeNextCase(
  deps: { store: EventStore; read: CaseReadModel; actors: CaseActors; settings: CaseSettingsStore },
  actor: CaseActor,
): Promise<string | undefined> {
  const by = await deps.actors.by(actor);
  const { dueHours } = await deps.settings.get(actor.businessId);
  for (let round = 0; round < ROUNDS; round++) {
    const ids = await deps.read.idsInOrder(actor.businessId, { active: true, unassigned: true }, 'next', CANDIDATES, dueHours);
    if (ids.length === 0) return undefined;
    for (const caseId of ids) {
      try {
        const command = { type: 'TakeCase' as const, data: { caseId, by } };
        await handleCommand(deps.store, caseStream(actor.businessId, caseId), caseDecider, command, caseMetadata(actor, by));
        return caseId;
      } catch (error) {
        // A version conflict is a ConflictError too: someone changed the case meanwhile.
        if (!(error instanceof ConflictError)) throw error;
      }
    }
  }
  return undefined;
}
