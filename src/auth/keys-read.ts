import type { Kysely } from 'kysely';
import type { ApiKeysTable, AuthTables } from './projection.js';

/** A key as listed: never its secret or webhook secrets. */
export interface KeySummary {
  apiKey: string;
  name: string;
  businessId: string;
  userId: string | null;
  revoked: boolean;
  createdAt: string;
}

const toSummary = (r: ApiKeysTable): KeySummary => ({
  apiKey: r.api_key,
  name: r.name,
  businessId: r.business_id,
  userId: r.user_id,
  revoked: r.revoked === 1,
  createdAt: r.created_at,
});

/**
 * The keys of the API-key read model, oldest first: every business's, or one's. It needs the database alone (no
 * log, no projections), so `keys list` reads it without opening the log (src/cli/context.ts, withReadModel).
 */
export async function listKeys(db: Kysely<AuthTables>, businessId?: string): Promise<KeySummary[]> {
  let query = db.selectFrom('api_keys').selectAll();
  if (businessId !== undefined) query = query.where('business_id', '=', businessId);
  return (await query.orderBy('created_at').execute()).map(toSummary);
}
