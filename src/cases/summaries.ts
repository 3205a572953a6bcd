import { sql, type Kysely } from 'kysely';
import { defineProjection } from '../projections/index.js';
import { insertAll, type StoredEvent } from '../store/index.js';
import { CASE_EVENT_TYPES, dispositionOf, subjectKeyOf, type CaseDisposition, type CaseEvent } from './events.js';

/**
 * What the listing filters and counts by, one row per case: a projection of its own, so that a log written before
 * it existed fills it by catching up, without altering the `cases` table.
 */
export interface CaseSummariesTable {
  business_id: string;
  case_id: string;
  /** The grouping key: `user:ID`, `account:ID`, or the record's `TYPE:ID` for a case not opened by an alert. */
  subject: string;
  disposition: CaseDisposition | null;
  alert_count: number;
  comment_count: number;
  attachment_count: number;
  task_count: number;
  log_count: number;
}

export interface CaseSummaryTables {
  case_summaries: CaseSummariesTable;
}

async function migrate(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('case_summaries')
    .ifNotExists()
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('case_id', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('disposition', 'text')
    .addColumn('alert_count', 'integer', (c) => c.notNull())
    .addColumn('comment_count', 'integer', (c) => c.notNull())
    .addColumn('attachment_count', 'integer', (c) => c.notNull())
    .addColumn('task_count', 'integer', (c) => c.notNull())
    .addColumn('log_count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('case_summaries_pk', ['business_id', 'case_id'])
    .execute();
  await db.schema.createIndex('case_summaries_by_subject').ifNotExists().on('case_summaries').columns(['business_id', 'subject']).execute();
}

type Count = 'alert_count' | 'comment_count' | 'attachment_count' | 'task_count';
const COUNTED: Partial<Record<CaseEvent['type'], Count>> = {
  CaseAlertAdded: 'alert_count',
  CaseCommentAdded: 'comment_count',
  CaseAttachmentAdded: 'attachment_count',
  CaseTaskAdded: 'task_count',
};

export const caseSummariesProjection = defineProjection<CaseSummaryTables>({
  name: 'case-summaries',
  handles: CASE_EVENT_TYPES,
  tables: [{ name: 'case_summaries', key: ['business_id', 'case_id'] }],
  migrate,
  apply: (db, stored) => applySummaryEvents(db, [stored]),
  applyMany: applySummaryEvents,
});

/**
 * A batch's events in log order. A case opened in the batch is counted in memory and inserted once at the end with
 * its counts (an alert opening a case is one row, not an insert and an update); the others are updated in place.
 */
async function applySummaryEvents(db: Kysely<CaseSummaryTables>, events: readonly StoredEvent[]): Promise<void> {
  const opened = new Map<string, CaseSummariesTable>();
  for (const stored of events) {
    const event = { type: stored.type, data: stored.data } as CaseEvent;
    const business_id = stored.metadata.businessId;
    const key = `${business_id}\u0000${event.data.caseId}`;
    if (event.type === 'CaseOpened') {
      const d = event.data;
      opened.set(key, {
        business_id,
        case_id: d.caseId,
        subject: d.subject ?? subjectKeyOf(d.record),
        disposition: null,
        alert_count: 0,
        comment_count: 0,
        attachment_count: 0,
        task_count: d.tasks.length,
        log_count: 1,
      });
      continue;
    }
    const counted = COUNTED[event.type];
    const disposition = event.type === 'CaseDispositionSet' ? dispositionOf(event.data.disposition) : undefined;
    const row = opened.get(key);
    if (row) {
      row.log_count++;
      if (counted) row[counted]++;
      if (disposition) row.disposition = disposition;
      continue;
    }
    await db
      .updateTable('case_summaries')
      .set({
        log_count: sql`log_count + 1`,
        ...(counted ? { [counted]: sql`${sql.ref(counted)} + 1` } : {}),
        ...(disposition ? { disposition } : {}),
      })
      .where('business_id', '=', business_id)
      .where('case_id', '=', event.data.caseId)
      .execute();
  }
  await insertAll(db, 'case_summaries', [...opened.values()]);
}
