import type { Kysely } from 'kysely';
import { defineProjection } from '../projections/index.js';
import { REPORT_EVENT_TYPES, type ReportEvent, type ReportKind, type ReportStatus } from './events.js';

/** One row per report: what the listing shows. The document itself is read from the report's stream. */
export interface ReportsTable {
  business_id: string;
  report_id: string;
  /** Global position of the first draft: the listing's newest-first order. */
  drafted_at_position: number;
  kind: ReportKind;
  status: ReportStatus;
  case_id: string | null;
  date: string | null;
  version: number;
  correction_of: string | null;
  fiu: string;
  transaction_count: number;
  missing_count: number;
  fiu_reference: string | null;
  created_at: string;
  updated_at: string;
}

export interface ReportTables {
  reports: ReportsTable;
}

export const reportsProjection = defineProjection<ReportTables>({
  name: 'reports',
  handles: REPORT_EVENT_TYPES,
  tables: [{ name: 'reports', key: ['business_id', 'report_id'] }],
  async migrate(db: Kysely<any>) {
    await db.schema
      .createTable('reports')
      .ifNotExists()
      .addColumn('business_id', 'text', (c) => c.notNull())
      .addColumn('report_id', 'text', (c) => c.notNull())
      .addColumn('drafted_at_position', 'integer', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('case_id', 'text')
      .addColumn('date', 'text')
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('correction_of', 'text')
      .addColumn('fiu', 'text', (c) => c.notNull())
      .addColumn('transaction_count', 'integer', (c) => c.notNull())
      .addColumn('missing_count', 'integer', (c) => c.notNull())
      .addColumn('fiu_reference', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('reports_pk', ['business_id', 'report_id'])
      .execute();
    await db.schema
      .createIndex('reports_by_business')
      .ifNotExists()
      .on('reports')
      .columns(['business_id', 'drafted_at_position'])
      .execute();
  },
  async apply(db, stored) {
    const event = { type: stored.type, data: stored.data } as ReportEvent;
    const business_id = stored.metadata.businessId;
    const { reportId: report_id } = event.data;
    const at = { updated_at: stored.recordedAt };
    const row = db.updateTable('reports').where('business_id', '=', business_id).where('report_id', '=', report_id);
    switch (event.type) {
      case 'ReportDrafted': {
        const d = event.data;
        const columns = { status: 'draft' as const, transaction_count: d.transactionIds.length, missing_count: d.missing.length, ...at };
        await db
          .insertInto('reports')
          .values({
            business_id,
            report_id,
            drafted_at_position: stored.position,
            kind: d.kind,
            case_id: d.caseId,
            date: d.date,
            version: d.version,
            correction_of: d.correctionOf,
            fiu: d.fiu,
            fiu_reference: null,
            created_at: stored.recordedAt,
            ...columns,
          })
          .onConflict((oc) => oc.columns(['business_id', 'report_id']).doUpdateSet({ ...columns, fiu: d.fiu }))
          .execute();
        return;
      }
      case 'ReportApproved':
        await row.set({ status: 'approved', ...at }).execute();
        return;
      case 'ReportSubmitted':
        await row.set({ status: 'submitted', ...at }).execute();
        return;
      case 'ReportAcknowledged':
        await row.set({ status: 'acknowledged', fiu_reference: event.data.fiuReference, ...at }).execute();
        return;
      case 'ReportRejected':
        await row.set({ status: 'rejected', fiu_reference: event.data.fiuReference, ...at }).execute();
        return;
    }
  },
});
