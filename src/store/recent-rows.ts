import type { AppendOutcome, EncodedAppend } from './batch.js';
import type { TailRow } from './schema.js';
import type { EventMetadata } from './types.js';

/** Rows kept: more than several clients' batches in flight write between two of one client's. */
const KEPT = 16_384;

/**
 * The rows a writer thread wrote or read whole last, by position, so that each store sharing it (serialCommitter's
 * clients) is told the others' rows without reading them back from the database.
 */
export class RecentRows {
  readonly #rows = new Map<number, TailRow>();
  #first = 0;

  /** One commit's rows: their headers from its outcomes, their data and metadata from its appends. */
  wrote(appends: readonly EncodedAppend[], outcomes: readonly AppendOutcome[]): void {
    outcomes.forEach((outcome, i) => {
      if (!('rows' in outcome)) return;
      const append = appends[i]!;
      let business: string | undefined;
      let k = 0;
      for (const write of append.writes) {
        for (const event of write.events) {
          const header = outcome.rows[k++]!;
          const business_id = header.partition === null ? null : (business ??= (JSON.parse(append.metadata) as EventMetadata).businessId);
          this.#keep({ ...header, data: event.data, metadata: append.metadata, business_id });
        }
      }
    });
  }

  /** Other processes' rows, read in a commit's transaction: kept where read whole. */
  read(rows: readonly TailRow[]): void {
    for (const row of rows) if (row.data !== null) this.#keep(row);
  }

  /** The rows after `from` up to `upTo` as a reader of `whole` takes them (readTail), or undefined if one is not kept. */
  between(from: number, upTo: number, whole: readonly number[] | undefined): TailRow[] | undefined {
    const needs = whole && new Set(whole);
    const rows: TailRow[] = [];
    for (let p = from + 1; p <= upTo; p++) {
      const row = this.#rows.get(p);
      if (!row) return undefined;
      rows.push(needs && row.partition !== null && !needs.has(row.partition) ? { ...row, data: null, metadata: null } : row);
    }
    return rows;
  }

  #keep(row: TailRow): void {
    this.#rows.set(row.global_position, row);
    if (this.#first === 0) this.#first = row.global_position;
    while (this.#rows.size > KEPT) this.#rows.delete(this.#first++);
  }
}
