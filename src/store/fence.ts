import type { EncodedAppend } from './batch.js';
import type { EventsTable, TailRow } from './schema.js';
import type { EventMetadata } from './types.js';

/**
 * An append was made from state that lacked a control event (a business-wide change such as a list entry) committed
 * since; the caller catches up and makes it again. Nothing of the append was written.
 */
export class StaleControlError extends Error {
  constructor(
    readonly key: string,
    readonly after: number,
    readonly changedAt: number,
  ) {
    super(`business ${key} changed at position ${changedAt}, after the position ${after} this append was made at`);
    this.name = 'StaleControlError';
  }
}

/**
 * The writer's record of where each business's control state last changed in the log: the last position of an event
 * of one of `types`, by its metadata's business id. The writer sees every row after the head the store started at
 * (its own as it plans them, other nodes' as it reads them under the append lock), so a fenced append is checked
 * against every control event committed before it, with no query of its own.
 */
export class ControlFence {
  readonly #types: ReadonlySet<string>;
  readonly #last = new Map<string, number>();

  constructor(types: ReadonlySet<string>) {
    this.#types = types;
  }

  /**
   * Other processes' committed rows, in log order (read again after a failed transaction: positions only move
   * forward). Their partitions (the partition column, with the business the read names) fence this process's
   * appends for the same partition: a partition that moved here was decided elsewhere until then, and the state here
   * may lack those rows yet.
   */
  saw(rows: readonly TailRow[]): void {
    for (const row of rows) {
      if (this.#types.has(row.type)) this.#raise(this.#last, row.business_id ?? keyOf(row.metadata!), row.global_position);
      else if (row.partition !== null) this.#raise(this.#last, partitionKey(row.business_id!, row.partition), row.global_position);
      // A row without the column whose metadata names a partition was appended by a node whose store predates the
      // column (a rolling upgrade); the cheap look first, as most metadata need not be parsed.
      else if (row.metadata?.includes('"partition":')) {
        const { businessId, partition } = JSON.parse(row.metadata) as EventMetadata;
        if (partition !== undefined) this.#raise(this.#last, partitionKey(businessId, partition), row.global_position);
      }
    }
  }

  /** A check over one transaction: appends planned earlier in it fence those after, and later batches once it commits. */
  batch(): FenceBatch {
    const pending = new Map<string, number>();
    return {
      committed: () => {
        for (const [key, position] of pending) this.#raise(this.#last, key, position);
      },
      check: (append) => {
        const fence = append.fence;
        if (!fence) return;
        const partitionAt = fence.partition === undefined ? 0 : (this.#last.get(fence.partition) ?? 0);
        const changedAt = Math.max(pending.get(fence.key) ?? 0, this.#last.get(fence.key) ?? 0, partitionAt);
        if (changedAt > fence.after) throw new StaleControlError(fence.key, fence.after, changedAt);
      },
      planned: (rows) => {
        for (const row of rows) if (this.#types.has(row.type)) this.#raise(pending, keyOf(row.metadata), row.global_position);
      },
    };
  }

  #raise(map: Map<string, number>, key: string, position: number): void {
    if (position > (map.get(key) ?? 0)) map.set(key, position);
  }
}

export interface FenceBatch {
  /** Throws StaleControlError when a control event of the append's business is later than the position it was made at. */
  check(append: EncodedAppend): void;
  /** An append planned in this batch: its control events fence the appends planned after it. */
  planned(rows: readonly EventsTable[]): void;
  /** The transaction committed: what it planned fences later batches too. */
  committed(): void;
}

const keyOf = (metadata: string): string => (JSON.parse(metadata) as EventMetadata).businessId;

/** The fence's key of a business's partition; a NUL cannot occur in a business id's key of its own. */
export const partitionKey = (businessId: string, partition: number): string => `${businessId}\u0000${partition}`;

/** The fence of an append decided at `madeAt`: its business's control state, and its partition where it leases one. */
export const appendFence = (metadata: EventMetadata, madeAt: number, leased: boolean): NonNullable<EncodedAppend['fence']> =>
  metadata.partition === undefined || !leased
    ? { key: metadata.businessId, after: madeAt }
    : { key: metadata.businessId, after: madeAt, partition: partitionKey(metadata.businessId, metadata.partition) };
