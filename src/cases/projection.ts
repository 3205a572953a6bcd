import { sql, type Kysely, type RawBuilder } from 'kysely';
import { defineProjection } from '../projections/index.js';
import { insertAll, type StoredEvent } from '../store/index.js';
import { isActive } from './decider.js';
import { CASE_EVENT_TYPES, CASE_PRIORITIES, type CaseEvent, type CaseModule, type CasePriority, type CaseStatus } from './events.js';
import { logMessage } from './log-messages.js';

export interface CasesTable {
  business_id: string;
  case_id: string;
  /** Global position of the opening event: the listing's newest-first order, stable under equal timestamps. */
  opened_at_position: number;
  module: CaseModule;
  record_id: string;
  record_type: string;
  record_name: string;
  title: string;
  description: string;
  priority: CasePriority;
  status: CaseStatus;
  assigned_to_id: string | null;
  /** JSON UserRef snapshots, as they were when the assignment was made. */
  assigned_to: string | null;
  assigned_by: string | null;
  due_date: string | null;
  is_escalated: number;
  created_at: string;
  updated_at: string;
}

/** Child rows are ordered by the event's global position, then by their index within the event. */
interface Child {
  business_id: string;
  case_id: string;
  position: number;
  ord: number;
}

export interface CaseTasksTable extends Child {
  task_id: string;
  text: string;
  done: number;
}

export interface CaseCommentsTable extends Child {
  comment_id: string;
  text: string;
  user: string;
  attachments: string;
  tagged_users: string;
  date: string;
}

export interface CaseAttachmentsTable extends Child {
  attachment_id: string;
  key: string;
  content_type: string;
  size: number;
  sha256: string;
  user: string;
  date: string;
}

export interface CaseAlertsTable extends Child {
  transaction_id: string;
  reference: string;
  action: string;
  score: string;
  priority: CasePriority;
  /** JSON array of the fired rules' ids. */
  rules: string;
  decided_at: string;
  reason: string;
  date: string;
}

export interface CaseLogTable extends Child {
  log_id: string;
  status: CaseStatus;
  message: string;
  user: string;
  date: string;
}

/** The one active (not resolved or closed) case of each record, which new occurrences of the record join. */
export interface CaseOpenRecordsTable {
  business_id: string;
  record_type: string;
  record_id: string;
  case_id: string;
}

export interface CaseTables {
  cases: CasesTable;
  case_tasks: CaseTasksTable;
  case_comments: CaseCommentsTable;
  case_attachments: CaseAttachmentsTable;
  case_alerts: CaseAlertsTable;
  case_log: CaseLogTable;
  case_open_records: CaseOpenRecordsTable;
}

const childKey = ['business_id', 'case_id'];

async function migrate(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('cases')
    .ifNotExists()
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('case_id', 'text', (c) => c.notNull())
    .addColumn('opened_at_position', 'integer', (c) => c.notNull())
    .addColumn('module', 'text', (c) => c.notNull())
    .addColumn('record_id', 'text', (c) => c.notNull())
    .addColumn('record_type', 'text', (c) => c.notNull())
    .addColumn('record_name', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('priority', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('assigned_to_id', 'text')
    .addColumn('assigned_to', 'text')
    .addColumn('assigned_by', 'text')
    .addColumn('due_date', 'text')
    .addColumn('is_escalated', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('cases_pk', ['business_id', 'case_id'])
    .execute();
  await db.schema.createIndex('cases_by_business').ifNotExists().on('cases').columns(['business_id', 'opened_at_position']).execute();
  // Per child table: its id column and its own columns (all NOT NULL), after the shared case key and order.
  const children: [string, string, [string, 'text' | 'integer'][]][] = [
    [
      'case_tasks',
      'task_id',
      [
        ['text', 'text'],
        ['done', 'integer'],
      ],
    ],
    [
      'case_comments',
      'comment_id',
      [
        ['text', 'text'],
        ['user', 'text'],
        ['attachments', 'text'],
        ['tagged_users', 'text'],
        ['date', 'text'],
      ],
    ],
    [
      'case_attachments',
      'attachment_id',
      [
        ['key', 'text'],
        ['content_type', 'text'],
        ['size', 'integer'],
        ['sha256', 'text'],
        ['user', 'text'],
        ['date', 'text'],
      ],
    ],
    [
      'case_alerts',
      'transaction_id',
      [
        ['reference', 'text'],
        ['action', 'text'],
        ['score', 'text'],
        ['priority', 'text'],
        ['rules', 'text'],
        ['decided_at', 'text'],
        ['reason', 'text'],
        ['date', 'text'],
      ],
    ],
    [
      'case_log',
      'log_id',
      [
        ['status', 'text'],
        ['message', 'text'],
        ['user', 'text'],
        ['date', 'text'],
      ],
    ],
  ];
  for (const [table, id, columns] of children) {
    const base = db.schema
      .createTable(table)
      .ifNotExists()
      .addColumn('business_id', 'text', (c) => c.notNull())
      .addColumn('case_id', 'text', (c) => c.notNull())
      .addColumn(id, 'text', (c) => c.notNull())
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('ord', 'integer', (c) => c.notNull());
    const withColumns = columns.reduce((t, [name, type]) => t.addColumn(name, type, (c) => c.notNull()), base);
    await withColumns.addPrimaryKeyConstraint(`${table}_pk`, [...childKey, id]).execute();
    await db.schema
      .createIndex(`${table}_by_case`)
      .ifNotExists()
      .on(table)
      .columns([...childKey, 'position', 'ord'])
      .execute();
  }
  await db.schema
    .createTable('case_open_records')
    .ifNotExists()
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('record_type', 'text', (c) => c.notNull())
    .addColumn('record_id', 'text', (c) => c.notNull())
    .addColumn('case_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('case_open_records_pk', ['business_id', 'record_type', 'record_id'])
    .execute();
}

const json = (value: unknown) => JSON.stringify(value);
const OPENED: CaseStatus = 'open';

/**
 * A batch's rows that wait for its end, to be written by one multi-row insert per table: the cases it opens, which
 * take the alerts joining them in memory (an alert only raises the priority and stamps the row), and the alert and
 * log rows, which no statement of the projection reads back.
 */
class Pending {
  readonly cases = new Map<string, CasesTable>();
  alerts: CaseAlertsTable[] = [];
  log: CaseLogTable[] = [];

  async flush(db: Kysely<CaseTables>): Promise<void> {
    await insertAll(db, 'cases', [...this.cases.values()]);
    await insertAll(db, 'case_alerts', this.alerts);
    await insertAll(db, 'case_log', this.log);
    this.cases.clear();
    this.alerts = [];
    this.log = [];
  }
}

const caseKey = (businessId: string, caseId: string) => `${businessId}\u0000${caseId}`;

/** The case row as open, stamped with the event's time, kept for the batch's end; its status is open. */
async function openCase(
  db: Kysely<CaseTables>,
  stored: StoredEvent,
  event: Extract<CaseEvent, { type: 'CaseOpened' }>,
  pending: Pending,
): Promise<CaseStatus> {
  const d = event.data;
  const business_id = stored.metadata.businessId;
  pending.cases.set(caseKey(business_id, d.caseId), {
    business_id,
    case_id: d.caseId,
    opened_at_position: stored.position,
    module: d.module,
    record_id: d.record.id,
    record_type: d.record.type,
    record_name: d.record.name,
    title: d.title,
    description: d.description,
    priority: d.priority,
    status: OPENED,
    assigned_to_id: d.assignedTo?._id ?? null,
    assigned_to: d.assignedTo ? json(d.assignedTo) : null,
    assigned_by: d.assignedTo ? json(d.by) : null,
    due_date: d.dueDate,
    is_escalated: 0,
    created_at: stored.recordedAt,
    updated_at: stored.recordedAt,
  });
  if (d.tasks.length > 0) {
    await db
      .insertInto('case_tasks')
      .values(
        d.tasks.map((t, ord) => ({
          business_id,
          case_id: d.caseId,
          task_id: t._id,
          position: stored.position,
          ord,
          text: t.text,
          done: 0,
        })),
      )
      .execute();
  }
  // A case an alert opened is its subject's, guarded by the subject stream, not by the record's open case.
  if (d.subject === undefined) {
    await db
      .insertInto('case_open_records')
      .values({ business_id, record_type: d.record.type, record_id: d.record.id, case_id: d.caseId })
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
  return OPENED;
}

/**
 * Applies a change to an existing case: its child rows, then one update of the case row that writes the changed
 * columns with updated_at and returns the status after the change.
 */
async function changeCase(
  db: Kysely<CaseTables>,
  stored: StoredEvent,
  event: Exclude<CaseEvent, { type: 'CaseOpened' }>,
  pending: Pending,
): Promise<CaseStatus> {
  const business_id = stored.metadata.businessId;
  const { caseId: case_id } = event.data;
  const opened = pending.cases.get(caseKey(business_id, case_id));
  if (opened && event.type === 'CaseAlertAdded') {
    const to = event.data.alert.priority;
    if (CASE_PRIORITIES.indexOf(opened.priority) < CASE_PRIORITIES.indexOf(to)) opened.priority = to;
    opened.updated_at = stored.recordedAt;
    pending.alerts.push(alertRow(stored, event));
    return opened.status;
  }
  // Any other change of a case opened in this batch reads or updates its row, which must be written first.
  if (opened) await pending.flush(db);
  const columns = await changeChildren(db, stored, event, pending);
  const { status } = await db
    .updateTable('cases')
    .set({ ...columns, updated_at: stored.recordedAt })
    .where('business_id', '=', business_id)
    .where('case_id', '=', case_id)
    .returning('status')
    .executeTakeFirstOrThrow();
  return status;
}

type CaseColumns = { [K in keyof CasesTable]?: CasesTable[K] | RawBuilder<CasesTable[K]> };

const RANK = sql`case priority ${sql.join(
  CASE_PRIORITIES.map((p, i) => sql`when ${sql.lit(p)} then ${sql.lit(i)}`),
  sql` `,
)} end`;

/** The row's priority raised to `to` when that is higher: a case's priority is the highest among its alerts. */
const raisedTo = (to: CasePriority) =>
  sql<CasePriority>`case when ${RANK} < ${sql.lit(CASE_PRIORITIES.indexOf(to))} then ${sql.lit(to)} else priority end`;

/** An alert's row; every row has its columns in this order, for the batch's one insert. */
function alertRow(stored: StoredEvent, event: Extract<CaseEvent, { type: 'CaseAlertAdded' }>): CaseAlertsTable {
  const a = event.data.alert;
  return {
    business_id: stored.metadata.businessId,
    case_id: event.data.caseId,
    position: stored.position,
    ord: 0,
    transaction_id: a.transactionId,
    reference: a.reference,
    action: a.action,
    score: a.score,
    priority: a.priority,
    rules: json(a.rules),
    decided_at: a.decidedAt,
    reason: a.reason,
    date: stored.recordedAt,
  };
}

/**
 * Writes the per-event change of a case's child rows and returns the case row's columns the event changes (none for
 * comments, tasks, attachments and occurrences); the log entry is written by `applyCaseEvents` for every event.
 */
async function changeChildren(
  db: Kysely<CaseTables>,
  stored: StoredEvent,
  event: Exclude<CaseEvent, { type: 'CaseOpened' }>,
  pending: Pending,
): Promise<CaseColumns> {
  const business_id = stored.metadata.businessId;
  const { caseId: case_id, by } = event.data;
  const at = { business_id, case_id, position: stored.position, ord: 0 };
  switch (event.type) {
    case 'CaseStatusChanged':
      if (!isActive(event.data.to)) {
        await db.deleteFrom('case_open_records').where('business_id', '=', business_id).where('case_id', '=', case_id).execute();
      }
      return { status: event.data.to };
    case 'CasePriorityChanged':
      return { priority: event.data.to };
    case 'CaseAlertAdded':
      pending.alerts.push(alertRow(stored, event));
      return { priority: raisedTo(event.data.alert.priority) };
    case 'CaseAssigned':
      return { assigned_to_id: event.data.assignee._id, assigned_to: json(event.data.assignee), assigned_by: json(by) };
    case 'CaseDueDateChanged':
      return { due_date: event.data.dueDate };
    case 'CaseEscalationChanged':
      return { is_escalated: event.data.isEscalated ? 1 : 0 };
    case 'CaseCommentAdded': {
      const d = event.data;
      const row = {
        ...at,
        comment_id: d.commentId,
        text: d.text,
        user: json(by),
        attachments: json(d.attachments),
        tagged_users: json(d.taggedUsers),
      };
      await db
        .insertInto('case_comments')
        .values({ ...row, date: stored.recordedAt })
        .execute();
      return {};
    }
    case 'CaseTaskAdded':
      await db
        .insertInto('case_tasks')
        .values({ ...at, task_id: event.data.taskId, text: event.data.text, done: 0 })
        .execute();
      return {};
    case 'CaseTaskStatusChanged':
      await db
        .updateTable('case_tasks')
        .set({ done: event.data.status ? 1 : 0 })
        .where('business_id', '=', business_id)
        .where('case_id', '=', case_id)
        .where('task_id', '=', event.data.taskId)
        .execute();
      return {};
    case 'CaseAttachmentAdded': {
      const a = event.data.attachment;
      const row = {
        ...at,
        attachment_id: event.data.attachmentId,
        key: a.key,
        content_type: a.contentType,
        size: a.size,
        sha256: a.sha256,
      };
      await db
        .insertInto('case_attachments')
        .values({ ...row, user: json(by), date: stored.recordedAt })
        .execute();
      return {};
    }
    case 'CaseOccurrenceLogged':
    case 'CaseClosureRequested':
    case 'CaseClosureRejected':
    case 'CaseDispositionSet':
      return {};
  }
}

export const casesProjection = defineProjection<CaseTables>({
  name: 'cases',
  handles: CASE_EVENT_TYPES,
  tables: [
    { name: 'cases', key: ['business_id', 'case_id'] },
    { name: 'case_tasks', key: [...childKey, 'task_id'] },
    { name: 'case_comments', key: [...childKey, 'comment_id'] },
    { name: 'case_attachments', key: [...childKey, 'attachment_id'] },
    { name: 'case_alerts', key: [...childKey, 'transaction_id'] },
    { name: 'case_log', key: [...childKey, 'log_id'] },
    { name: 'case_open_records', key: ['business_id', 'record_type', 'record_id'] },
  ],
  migrate,
  apply: (db, stored) => applyCaseEvents(db, [stored]),
  applyMany: applyCaseEvents,
});

/**
 * A batch's events in log order. The statements that read or update a case row run in that order; the rows nothing
 * reads back wait in `Pending` for one insert per table, so an alert opening a case costs no update of its row.
 */
async function applyCaseEvents(db: Kysely<CaseTables>, events: readonly StoredEvent[]): Promise<void> {
  const pending = new Pending();
  for (const stored of events) {
    const event = { type: stored.type, data: stored.data } as CaseEvent;
    const status = event.type === 'CaseOpened' ? await openCase(db, stored, event, pending) : await changeCase(db, stored, event, pending);
    // Append-only: log rows are inserted once per event and never updated.
    pending.log.push({
      business_id: stored.metadata.businessId,
      case_id: event.data.caseId,
      position: stored.position,
      ord: 0,
      log_id: stored.eventId,
      status,
      message: logMessage(event),
      user: json(event.data.by),
      date: stored.recordedAt,
    });
  }
  await pending.flush(db);
}
