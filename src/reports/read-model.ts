import type { Kysely } from 'kysely';
import { readPage } from '../projections/index.js';
import type { ReportKind, ReportStatus } from './events.js';
import type { ReportsTable, ReportTables } from './projection.js';

export interface ReportSummary {
  id: string;
  kind: ReportKind;
  status: ReportStatus;
  caseId: string | null;
  date: string | null;
  version: number;
  correctionOf: string | null;
  fiu: string;
  transactionCount: number;
  missingCount: number;
  fiuReference: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ReportFilters {
  kind?: ReportKind;
  status?: ReportStatus;
  caseId?: string;
  date?: string;
}

const summary = (r: ReportsTable): ReportSummary => ({
  id: r.report_id,
  kind: r.kind,
  status: r.status,
  caseId: r.case_id,
  date: r.date,
  version: r.version,
  correctionOf: r.correction_of,
  fiu: r.fiu,
  transactionCount: r.transaction_count,
  missingCount: r.missing_count,
  fiuReference: r.fiu_reference,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export class ReportReadModel {
  readonly #db: Kysely<ReportTables>;
  constructor(db: Kysely<any>) {
    this.#db = db;
  }

  async list(businessId: string, filters: ReportFilters, page: { page: number; limit: number }) {
    let base = this.#db.selectFrom('reports').where('business_id', '=', businessId);
    if (filters.kind) base = base.where('kind', '=', filters.kind);
    if (filters.status) base = base.where('status', '=', filters.status);
    if (filters.caseId) base = base.where('case_id', '=', filters.caseId);
    if (filters.date) base = base.where('date', '=', filters.date);
    const { rows, total } = await readPage(base.selectAll().orderBy('drafted_at_position', 'desc'), base, page);
    return { reports: rows.map(summary), total };
  }

  async find(businessId: string, reportId: string): Promise<ReportSummary | undefined> {
    const row = await this.#db
      .selectFrom('reports')
      .selectAll()
      .where('business_id', '=', businessId)
      .where('report_id', '=', reportId)
      .executeTakeFirst();
    return row && summary(row);
  }

  /** A report of a case or a day that still stands (not rejected): a second one would report the same thing twice. */
  async standing(businessId: string, where: { caseId: string } | { date: string }): Promise<string | undefined> {
    let query = this.#db.selectFrom('reports').select('report_id').where('business_id', '=', businessId).where('status', '!=', 'rejected');
    query =
      'caseId' in where ? query.where('case_id', '=', where.caseId) : query.where('kind', '=', 'threshold').where('date', '=', where.date);
    return (await query.executeTakeFirst())?.report_id;
  }
}
