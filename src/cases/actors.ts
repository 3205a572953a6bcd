import { keyActorId } from '../auth/index.js';
import { ValidationError } from '../errors.js';
import type { EventMetadata } from '../store/index.js';
import type { UserRef, UserService } from '../users/index.js';
import { SYSTEM_ACTOR } from './events.js';

/**
 * Who acts on a case. A user id (an API key bound to a user) makes that user the author of the log entries;
 * an unbound API key is logged as itself; no identity at all is the system actor.
 */
export interface CaseActor {
  businessId: string;
  userId?: string;
  apiKey?: string;
  /** The API key's name, shown as the author of what an unbound key does. */
  keyName?: string;
  requestId?: string;
}

/** The people case commands name: their author, and the users they assign or tag. */
export class CaseActors {
  constructor(private readonly users: UserService) {}

  /** The author of what the actor does, as the case log shows them. */
  async by(actor: CaseActor): Promise<UserRef> {
    if (actor.userId) return (await this.users.ref(actor.businessId, actor.userId)) ?? { _id: actor.userId, firstName: '', lastName: '' };
    // Shown as `API key NAME` (keyActorName), the id naming the key itself.
    if (actor.apiKey) return { _id: keyActorId(actor.apiKey), firstName: 'API key', lastName: actor.keyName ?? actor.apiKey };
    return SYSTEM_ACTOR;
  }

  /** A user of the business a command names (an assignee, a tagged user); another business's is refused naming `field`. */
  async user(businessId: string, userId: string, field: string): Promise<UserRef> {
    const ref = await this.users.ref(businessId, userId);
    if (!ref) throw new ValidationError(`${field} must be the id of a user of this business`, field);
    return ref;
  }
}

export const caseMetadata = (actor: CaseActor, by: UserRef): EventMetadata => ({
  businessId: actor.businessId,
  actor: by._id,
  ...(actor.requestId ? { requestId: actor.requestId } : {}),
});
