import { keyActorId } from '../auth/index.js';

/** Who acts on reports: a person of the business, or an API key. */
export interface ReportActor {
  businessId: string;
  userId?: string;
  apiKey?: string;
  requestId?: string;
}

/** The actor's name in the log and on a draft. */
export const actorName = (actor: ReportActor): string => actor.userId ?? (actor.apiKey ? keyActorId(actor.apiKey) : 'api');
