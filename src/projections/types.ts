import type { Kysely } from 'kysely';
import type { StoredEvent } from '../store/index.js';

/** A read-model table, and the columns that identify a row (what replay --verify reports a diff by). */
export interface ReadModelTable {
  name: string;
  key: readonly string[];
}

/**
 * A projection turns events into rows. `apply` must depend only on the event (never on the wall clock or
 * randomness), so that replaying the log rebuilds the same rows byte for byte.
 */
export interface Projection<Tables = any> {
  name: string;
  handles: readonly string[];
  tables: readonly ReadModelTable[];
  migrate(db: Kysely<any>): Promise<void>;
  apply(db: Kysely<Tables>, event: StoredEvent): Promise<void>;
  /**
   * Applies several of its events, in log order, at once: for a projection whose rows of one event do not depend on
   * another's, or that keeps their order itself, one statement for them all (on PostgreSQL every statement is a
   * round trip to the server).
   */
  applyMany?(db: Kysely<Tables>, events: readonly StoredEvent[]): Promise<void>;
  /**
   * Applied after the commit, in batches, instead of inside each append's transaction: for a read model the instant
   * path writes to on every decision and no command reads. Its reads settle it first (EventStore.settleDeferred).
   */
  deferred?: boolean;
}

/** Helps a projection declare its handled types from its event union, with the compiler checking the names. */
export function defineProjection<Tables>(projection: Projection<Tables>): Projection<Tables> {
  return projection;
}
