import { sql, type Kysely } from 'kysely';
import type { UserRef } from '../users/index.js';
import type { CaseAlert } from './alerts.js';
import {
  CASE_PRIORITIES,
  type AttachmentRef,
  type CaseDisposition,
  type CaseModule,
  type CasePriority,
  type CaseRecord,
  type CaseStatus,
} from './events.js';
import type { CasesTable, CaseTables } from './projection.js';
import type { CaseSummariesTable, CaseSummaryTables } from './summaries.js';
import { readPage } from '../projections/index.js';
import { openedBeforeDue, type DueHours } from './due.js';
import { orderedBy } from './ordering.js';

export interface CaseTask {
  _id: string;
  text: string;
  status: boolean;
}

export interface CaseComment {
  _id: string;
  text: string;
  user: UserRef;
  attachments: AttachmentRef[];
  taggedUsers: UserRef[];
  date: string;
}

export interface CaseAttachment extends AttachmentRef {
  _id: string;
  user: UserRef;
  date: string;
}

/** An alert as the case lists it: `_id` is its transaction id, `date` when it joined the case. */
export interface CaseAlertEntry extends CaseAlert {
  _id: string;
  date: string;
}

export interface CaseLogEntry {
  _id: string;
  status: CaseStatus;
  message: string;
  user: UserRef;
  date: string;
}

/** The interface's Case resource. */
export interface Case {
  _id: string;
  businessProfile: string;
  module: CaseModule;
  record: CaseRecord;
  title: string;
  description: string;
  priority: CasePriority;
  status: CaseStatus;
  assignedTo: UserRef | null;
  assignedBy: UserRef | null;
  dueDate: string | null;
  tasks: CaseTask[];
  comments: CaseComment[];
  attachments: CaseAttachment[];
  isEscalated: boolean;
  log: CaseLogEntry[];
  createdAt: string;
  updatedAt: string;
  /** The grouping key: `user:ID` or `account:ID` for a case alerts joined, else the record's `TYPE:ID`. */
  subject: string;
  disposition: CaseDisposition | null;
  /** The decisions that were not approved, in the order they joined. */
  alerts: CaseAlertEntry[];
  /** How many of each list the case holds; a listing carries only the latest few of each. */
  counts: { alerts: number; comments: number; attachments: number; tasks: number; log: number };
}

/** How many of the latest entries of each list a listed case carries; the whole lists come with the case itself. */
export const LISTED_LATEST = 3;

export interface CaseFilters {
  status?: CaseStatus;
  module?: CaseModule;
  priority?: CasePriority;
  assignedTo?: string;
  recordId?: string;
  /** Part of the record's id or name (a customer's name, a transaction reference), case-insensitive. */
  recordSearch?: string;
  /** Opened at or before this instant (the queue's age filter). */
  openedBefore?: string;
  /** Opened at or after this instant. */
  openedAfter?: string;
  escalated?: boolean;
  /** The grouping key, `user:ID` or `account:ID` (or a record's `TYPE:ID`). */
  subject?: string;
  disposition?: CaseDisposition;
  /** At least this many alerts. */
  minAlerts?: number;
  /** Active and past due at `now`, a case without a due date of its own being due `dueHours` after opening. */
  overdue?: { now: string; dueHours: DueHours };
  /** Only cases nobody is assigned to. */
  unassigned?: boolean;
  /** Only cases neither resolved nor closed. */
  active?: boolean;
  /** The queue's search: the record's id or name contains `text`, an alert's reference is `text`, or one of `caseIds`. */
  search?: { text: string; caseIds: readonly string[] };
}

/** `due` (soonest first) and `next` (the order "next case" takes them in) need the business's due hours. */
export const CASE_SORTS = ['newest', 'oldest', 'priority', 'updated', 'due', 'next'] as const;
export type CaseSort = (typeof CASE_SORTS)[number];

const SUMMARY_COLUMNS = [
  'case_summaries.subject',
  'case_summaries.disposition',
  'case_summaries.alert_count',
  'case_summaries.comment_count',
  'case_summaries.attachment_count',
  'case_summaries.task_count',
  'case_summaries.log_count',
] as const;

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

const parse = <T>(text: string): T => JSON.parse(text) as T;

type Tables = CaseTables & CaseSummaryTables;
type Row = CasesTable &
  Pick<CaseSummariesTable, 'subject' | 'disposition' | `${'alert' | 'comment' | 'attachment' | 'task' | 'log'}_count`>;
type ChildTable = 'case_tasks' | 'case_comments' | 'case_attachments' | 'case_alerts' | 'case_log';

/**
 * A child table's rows of the cases, in order: all of them, or only each case's `latest` (numbered newest first
 * per case, so a case with thousands of comments costs a listing no more than one with three).
 */
function childRows<T extends ChildTable>(db: Kysely<Tables>, table: T, businessId: string, ids: string[], latest?: number) {
  const all = db
    .selectFrom(table as 'case_log')
    .where('business_id', '=', businessId)
    .where('case_id', 'in', ids);
  if (latest === undefined) {
    return all.selectAll().orderBy('position').orderBy('ord').execute() as unknown as Promise<CaseTables[T][]>;
  }
  const numbered = all
    .selectAll()
    .select(sql<number>`row_number() over (partition by case_id order by position desc, ord desc)`.as('nth'))
    .as('numbered');
  return db.selectFrom(numbered).selectAll().where('nth', '<=', latest).orderBy('position').orderBy('ord').execute() as unknown as Promise<
    CaseTables[T][]
  >;
}

const alertEntry = (a: CaseTables['case_alerts']): CaseAlertEntry => ({
  _id: a.transaction_id,
  transactionId: a.transaction_id,
  reference: a.reference,
  action: a.action,
  score: a.score,
  priority: a.priority,
  rules: parse<string[]>(a.rules),
  decidedAt: a.decided_at,
  reason: a.reason,
  date: a.date,
});

/** Loads cases (children included, or only each list's `latest` entries) for a set of case rows, in the rows' order. */
async function assemble(db: Kysely<Tables>, businessId: string, rows: Row[], latest?: number): Promise<Case[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.case_id);
  const [tasks, comments, attachments, alerts, log] = await Promise.all([
    childRows(db, 'case_tasks', businessId, ids, latest),
    childRows(db, 'case_comments', businessId, ids, latest),
    childRows(db, 'case_attachments', businessId, ids, latest),
    childRows(db, 'case_alerts', businessId, ids, latest),
    childRows(db, 'case_log', businessId, ids, latest),
  ]);
  const byCase = <R extends { case_id: string }, O>(list: R[], map: (r: R) => O) => {
    const out = new Map<string, O[]>();
    for (const r of list) out.set(r.case_id, [...(out.get(r.case_id) ?? []), map(r)]);
    return (id: string) => out.get(id) ?? [];
  };
  const tasksOf = byCase(tasks, (t) => ({ _id: t.task_id, text: t.text, status: t.done === 1 }));
  const commentsOf = byCase(comments, (c) => ({
    _id: c.comment_id,
    text: c.text,
    user: parse<UserRef>(c.user),
    attachments: parse<AttachmentRef[]>(c.attachments),
    taggedUsers: parse<UserRef[]>(c.tagged_users),
    date: c.date,
  }));
  const attachmentsOf = byCase(attachments, (a) => ({
    _id: a.attachment_id,
    key: a.key,
    contentType: a.content_type,
    size: a.size,
    sha256: a.sha256,
    user: parse<UserRef>(a.user),
    date: a.date,
  }));
  const alertsOf = byCase(alerts, alertEntry);
  const logOf = byCase(log, (l) => ({ _id: l.log_id, status: l.status, message: l.message, user: parse<UserRef>(l.user), date: l.date }));
  return rows.map((r) => ({
    _id: r.case_id,
    businessProfile: r.business_id,
    module: r.module,
    record: { id: r.record_id, type: r.record_type, name: r.record_name },
    title: r.title,
    description: r.description,
    priority: r.priority,
    status: r.status,
    assignedTo: r.assigned_to ? parse<UserRef>(r.assigned_to) : null,
    assignedBy: r.assigned_by ? parse<UserRef>(r.assigned_by) : null,
    dueDate: r.due_date,
    tasks: tasksOf(r.case_id),
    comments: commentsOf(r.case_id),
    attachments: attachmentsOf(r.case_id),
    isEscalated: r.is_escalated === 1,
    log: logOf(r.case_id),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    subject: r.subject,
    disposition: r.disposition,
    alerts: alertsOf(r.case_id),
    counts: {
      alerts: r.alert_count,
      comments: r.comment_count,
      attachments: r.attachment_count,
      tasks: r.task_count,
      log: r.log_count,
    },
  }));
}

export class CaseReadModel {
  readonly #db: Kysely<Tables>;
  constructor(db: Kysely<any>) {
    this.#db = db;
  }

  async find(businessId: string, caseId: string): Promise<Case | undefined> {
    const row = await this.#joined(businessId).where('cases.case_id', '=', caseId).executeTakeFirst();
    return row && (await assemble(this.#db, businessId, [row]))[0];
  }

  async list(
    businessId: string,
    filters: CaseFilters,
    page: { page: number; limit: number },
    sort: CaseSort = 'newest',
    dueHours?: DueHours,
  ): Promise<{ cases: Case[]; total: number }> {
    const base = this.#filtered(businessId, filters);
    const { rows, total: found } = await readPage(
      orderedBy(this.#db, base.selectAll('cases').select(SUMMARY_COLUMNS), sort, dueHours),
      base,
      page,
    );
    return { cases: await assemble(this.#db, businessId, rows, LISTED_LATEST), total: found };
  }

  /** The ids of the cases matching the filters, in the sort's order, at most `limit`. */
  async idsInOrder(businessId: string, filters: CaseFilters, sort: CaseSort, limit: number, dueHours?: DueHours): Promise<string[]> {
    const rows = await orderedBy(this.#db, this.#filtered(businessId, filters).select('cases.case_id'), sort, dueHours)
      .limit(limit)
      .execute();
    return rows.map((r) => r.case_id as string);
  }

  /** A page of a case's alerts, in the order they joined (a case may hold thousands). */
  async alerts(
    businessId: string,
    caseId: string,
    page: { page: number; limit: number },
  ): Promise<{ alerts: CaseAlertEntry[]; total: number }> {
    const base = this.#db.selectFrom('case_alerts').where('business_id', '=', businessId).where('case_id', '=', caseId);
    const { rows, total } = await readPage(base.selectAll().orderBy('position').orderBy('ord'), base, page);
    return { alerts: rows.map(alertEntry), total };
  }

  /** How many cases of each status match the other filters (the queue's tabs). */
  async countsByStatus(businessId: string, filters: Omit<CaseFilters, 'status'>): Promise<Map<CaseStatus, number>> {
    const rows = await this.#filtered(businessId, filters)
      .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('status')
      .execute();
    return new Map(rows.map((r) => [r.status, Number(r.n)]));
  }

  #joined(businessId: string) {
    return this.#from(businessId).selectAll('cases').select(SUMMARY_COLUMNS);
  }

  #from(businessId: string) {
    return this.#db
      .selectFrom('cases')
      .innerJoin('case_summaries', (j) =>
        j.onRef('case_summaries.business_id', '=', 'cases.business_id').onRef('case_summaries.case_id', '=', 'cases.case_id'),
      )
      .where('cases.business_id', '=', businessId);
  }

  #filtered(businessId: string, filters: CaseFilters) {
    let base = this.#from(businessId);
    if (filters.status) base = base.where('status', '=', filters.status);
    if (filters.module) base = base.where('module', '=', filters.module);
    if (filters.priority) base = base.where('priority', '=', filters.priority);
    if (filters.assignedTo) base = base.where('assigned_to_id', '=', filters.assignedTo);
    if (filters.recordId) base = base.where('record_id', '=', filters.recordId);
    if (filters.openedBefore) base = base.where('created_at', '<=', filters.openedBefore);
    if (filters.openedAfter) base = base.where('created_at', '>=', filters.openedAfter);
    if (filters.subject) base = base.where('subject', '=', filters.subject);
    if (filters.disposition) base = base.where('disposition', '=', filters.disposition);
    if (filters.minAlerts !== undefined) base = base.where('alert_count', '>=', filters.minAlerts);
    if (filters.escalated !== undefined) base = base.where('is_escalated', '=', filters.escalated ? 1 : 0);
    if (filters.unassigned) base = base.where('assigned_to_id', 'is', null);
    if (filters.active) base = base.where('status', 'not in', ['resolved', 'closed']);
    if (filters.overdue) {
      const { now, dueHours } = filters.overdue;
      const before = openedBeforeDue(dueHours, now);
      base = base
        .where('status', 'not in', ['resolved', 'closed'])
        .where((eb) =>
          eb.or([
            eb.and([eb('due_date', 'is not', null), eb('due_date', '<', now)]),
            eb.and([
              eb('due_date', 'is', null),
              eb.or(CASE_PRIORITIES.map((p) => eb.and([eb('priority', '=', p), eb('cases.created_at', '<', before[p])]))),
            ]),
          ]),
        );
    }
    if (filters.search) {
      const { text, caseIds } = filters.search;
      const like = `%${escapeLike(text.toLowerCase())}%`;
      const byReference = this.#db
        .selectFrom('case_alerts')
        .select('case_alerts.case_id')
        .where('case_alerts.business_id', '=', businessId)
        .where('case_alerts.reference', '=', text);
      base = base.where((eb) =>
        eb.or([
          eb(sql`lower(record_id)`, 'like', sql`${like} escape '\\'`),
          eb(sql`lower(record_name)`, 'like', sql`${like} escape '\\'`),
          eb('cases.case_id', 'in', byReference),
          ...(caseIds.length > 0 ? [eb('cases.case_id', 'in', [...caseIds])] : []),
        ]),
      );
    }
    if (filters.recordSearch) {
      const like = `%${escapeLike(filters.recordSearch.toLowerCase())}%`;
      base = base.where((eb) =>
        eb.or([eb(sql`lower(record_id)`, 'like', sql`${like} escape '\\'`), eb(sql`lower(record_name)`, 'like', sql`${like} escape '\\'`)]),
      );
    }
    return base;
  }

  async statusOf(businessId: string, caseId: string): Promise<CaseStatus | undefined> {
    const row = await this.#db
      .selectFrom('cases')
      .select('status')
      .where('business_id', '=', businessId)
      .where('case_id', '=', caseId)
      .executeTakeFirst();
    return row?.status;
  }

  /** The ids of the cases matching the filters, newest first, at most `limit`. */
  async ids(businessId: string, filters: CaseFilters, limit: number): Promise<string[]> {
    const rows = await this.#filtered(businessId, filters)
      .select('cases.case_id')
      .orderBy('opened_at_position', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => r.case_id);
  }

  /** The active case of a record, if any: the one a new occurrence joins. */
  async activeCaseOf(businessId: string, record: Pick<CaseRecord, 'type' | 'id'>): Promise<string | undefined> {
    const row = await this.#db
      .selectFrom('case_open_records')
      .select('case_id')
      .where('business_id', '=', businessId)
      .where('record_type', '=', record.type)
      .where('record_id', '=', record.id)
      .executeTakeFirst();
    return row?.case_id;
  }
}
