import type { Kysely } from 'kysely';
import { defineProjection } from '../projections/index.js';
import type { StoredEvent } from '../store/index.js';
import type { ApprovalEvent } from './events.js';

/** Each four-eyes request as the inbox and a timeline show it. */
export interface ApprovalRequestsTable {
  business_id: string;
  request_id: string;
  action: string;
  subject_kind: string;
  subject_id: string;
  summary: string;
  payload: string;
  maker_kind: string;
  maker_id: string;
  maker_name: string;
  reason: string;
  requested_at: string;
  status: string;
  checker_id: string | null;
  checker_name: string | null;
  decision_reason: string | null;
  decided_at: string | null;
  error: string | null;
}

export interface ApprovalTables {
  approval_requests: ApprovalRequestsTable;
}

async function migrate(db: Kysely<any>) {
  await db.schema
    .createTable('approval_requests')
    .ifNotExists()
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('subject_kind', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'text', (c) => c.notNull())
    .addColumn('summary', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('maker_kind', 'text', (c) => c.notNull())
    .addColumn('maker_id', 'text', (c) => c.notNull())
    .addColumn('maker_name', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('requested_at', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('checker_id', 'text')
    .addColumn('checker_name', 'text')
    .addColumn('decision_reason', 'text')
    .addColumn('decided_at', 'text')
    .addColumn('error', 'text')
    .addPrimaryKeyConstraint('approval_requests_pk', ['business_id', 'request_id'])
    .execute();
  await db.schema
    .createIndex('approval_requests_by_status')
    .ifNotExists()
    .on('approval_requests')
    .columns(['business_id', 'status', 'requested_at'])
    .execute();
  await db.schema
    .createIndex('approval_requests_by_subject')
    .ifNotExists()
    .on('approval_requests')
    .columns(['business_id', 'subject_kind', 'subject_id'])
    .execute();
}

export const approvalsProjection = defineProjection<ApprovalTables>({
  name: 'approvals',
  handles: ['ApprovalRequested', 'ApprovalGranted', 'ApprovalRejected', 'ApprovalFailed'] satisfies ApprovalEvent['type'][],
  tables: [{ name: 'approval_requests', key: ['business_id', 'request_id'] }],
  migrate,
  async apply(db, stored: StoredEvent) {
    const event = { type: stored.type, data: stored.data } as ApprovalEvent;
    const business_id = stored.metadata.businessId;
    switch (event.type) {
      case 'ApprovalRequested': {
        const d = event.data;
        await db
          .insertInto('approval_requests')
          .values({
            business_id,
            request_id: d.requestId,
            action: d.action,
            subject_kind: d.subject.kind,
            subject_id: d.subject.id,
            summary: d.summary,
            payload: JSON.stringify(d.payload),
            maker_kind: d.maker.kind,
            maker_id: d.maker.id,
            maker_name: d.maker.name,
            reason: d.reason,
            requested_at: stored.recordedAt,
            status: 'pending',
            checker_id: null,
            checker_name: null,
            decision_reason: null,
            decided_at: null,
            error: null,
          })
          .execute();
        return;
      }
      case 'ApprovalGranted':
      case 'ApprovalRejected':
        await db
          .updateTable('approval_requests')
          .set({
            status: event.type === 'ApprovalGranted' ? 'approved' : 'rejected',
            checker_id: event.data.checker.id,
            checker_name: event.data.checker.name,
            decision_reason: event.data.reason,
            decided_at: stored.recordedAt,
          })
          .where('business_id', '=', business_id)
          .where('request_id', '=', event.data.requestId)
          .execute();
        return;
      case 'ApprovalFailed':
        await db
          .updateTable('approval_requests')
          .set({ status: 'failed', error: event.data.error })
          .where('business_id', '=', business_id)
          .where('request_id', '=', event.data.requestId)
          .execute();
        return;
    }
  },
});
