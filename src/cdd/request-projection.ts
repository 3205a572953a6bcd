import type { Kysely } from 'kysely';
import { defineProjection } from '../projections/index.js';
import type { StoredEvent } from '../store/index.js';
import type { RequestEvent, ScheduleEvent } from './events.js';
import type { MatchKind, RequestMatches } from './types.js';

export interface CddRequestsTable {
  business_id: string;
  request_id: string;
  customer_unique_id: string;
  type: string;
  workflow: string;
  name: string;
  status: string;
  matches: string;
  /** {pep: {"0": "found"}, ...}: reviewer decisions by match position. */
  decisions: string;
  overall_risk_level: string | null;
  execution_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface CddSchedulesTable {
  business_id: string;
  execution_id: string;
  customer_unique_id: string;
  workflow_slug: string;
  workflow_name: string;
  name: string;
  type: string;
  status: string;
  every_days: number;
  next_run_at: string;
  last_request_id: string | null;
  created_at: string;
}

export interface CddRequestTables {
  cdd_requests: CddRequestsTable;
  cdd_schedules: CddSchedulesTable;
}

export type ReviewStatus = 'found' | 'not found';
/** A reviewer's decision on one match: who and when; older read models hold the status alone until rebuilt. */
export type MatchReview = { status: ReviewStatus; by: string; at: string } | ReviewStatus;
export type Decisions = Partial<Record<MatchKind, Record<string, MatchReview>>>;

const HANDLES = [
  'CddRequestCreated',
  'CddRequestStarted',
  'CddCheckRecorded',
  'CddRequestAwaitingConfirmation',
  'CddMatchReviewed',
  'CddRequestCompleted',
  'CddScheduleCreated',
  'CddScheduleFired',
] as const;
type Handled = Extract<RequestEvent | ScheduleEvent, { type: (typeof HANDLES)[number] }>;

const emptyMatches = (): RequestMatches => ({ pep: [], sanctions: [], adverseMedia: null });

export const cddRequestsProjection = defineProjection<CddRequestTables>({
  name: 'cdd_requests',
  handles: HANDLES,
  tables: [
    { name: 'cdd_requests', key: ['business_id', 'request_id'] },
    { name: 'cdd_schedules', key: ['business_id', 'execution_id'] },
  ],
  async migrate(db: Kysely<any>) {
    await db.schema
      .createTable('cdd_requests')
      .ifNotExists()
      .addColumn('business_id', 'text', (c) => c.notNull())
      .addColumn('request_id', 'text', (c) => c.notNull())
      .addColumn('customer_unique_id', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('workflow', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('matches', 'text', (c) => c.notNull())
      .addColumn('decisions', 'text', (c) => c.notNull())
      .addColumn('overall_risk_level', 'text')
      .addColumn('execution_id', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('cdd_requests_pk', ['business_id', 'request_id'])
      .execute();
    await db.schema
      .createIndex('cdd_requests_customer')
      .ifNotExists()
      .on('cdd_requests')
      .columns(['business_id', 'customer_unique_id', 'created_at'])
      .execute();
    await db.schema.createIndex('cdd_requests_status').ifNotExists().on('cdd_requests').columns(['status']).execute();
    await db.schema
      .createTable('cdd_schedules')
      .ifNotExists()
      .addColumn('business_id', 'text', (c) => c.notNull())
      .addColumn('execution_id', 'text', (c) => c.notNull())
      .addColumn('customer_unique_id', 'text', (c) => c.notNull())
      .addColumn('workflow_slug', 'text', (c) => c.notNull())
      .addColumn('workflow_name', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('every_days', 'integer', (c) => c.notNull())
      .addColumn('next_run_at', 'text', (c) => c.notNull())
      .addColumn('last_request_id', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('cdd_schedules_pk', ['business_id', 'execution_id'])
      .execute();
    await db.schema.createIndex('cdd_schedules_due').ifNotExists().on('cdd_schedules').columns(['next_run_at']).execute();
  },
  async apply(db, stored: StoredEvent) {
    const event = stored as unknown as Handled;
    const businessId = stored.metadata.businessId;
    const request = (requestId: string) =>
      db.updateTable('cdd_requests').where('business_id', '=', businessId).where('request_id', '=', requestId);
    const current = (requestId: string) =>
      db
        .selectFrom('cdd_requests')
        .select(['matches', 'decisions'])
        .where('business_id', '=', businessId)
        .where('request_id', '=', requestId)
        .executeTakeFirstOrThrow();
    const at = stored.recordedAt;
    switch (event.type) {
      case 'CddRequestCreated': {
        const d = event.data;
        await db
          .insertInto('cdd_requests')
          .values({
            business_id: businessId,
            request_id: d.requestId,
            customer_unique_id: d.customerUniqueId,
            type: d.type,
            workflow: JSON.stringify(d.workflow),
            name: d.name,
            status: 'not started',
            matches: JSON.stringify(emptyMatches()),
            decisions: '{}',
            overall_risk_level: null,
            execution_id: d.executionId ?? null,
            created_at: at,
            updated_at: at,
          })
          .execute();
        return;
      }
      case 'CddRequestStarted':
        await request(event.data.requestId).set({ status: 'in progress', updated_at: at }).execute();
        return;
      case 'CddCheckRecorded': {
        const found = event.data.matches;
        if (!found) return;
        const matches = JSON.parse((await current(event.data.requestId)).matches) as RequestMatches;
        matches.pep.push(...(found.pep ?? []));
        matches.sanctions.push(...(found.sanctions ?? []));
        if (found.adverseMedia) matches.adverseMedia = [...(matches.adverseMedia ?? []), ...found.adverseMedia];
        await request(event.data.requestId)
          .set({ matches: JSON.stringify(matches), updated_at: at })
          .execute();
        return;
      }
      case 'CddRequestAwaitingConfirmation':
        await request(event.data.requestId).set({ status: 'awaiting confirmation', updated_at: at }).execute();
        return;
      case 'CddMatchReviewed': {
        const { kind, index, status, reviewedBy, reviewedAt } = event.data;
        const decisions = JSON.parse((await current(event.data.requestId)).decisions) as Decisions;
        (decisions[kind] ??= {})[String(index)] = { status, by: reviewedBy, at: reviewedAt };
        await request(event.data.requestId)
          .set({ decisions: JSON.stringify(decisions), updated_at: at })
          .execute();
        return;
      }
      case 'CddRequestCompleted':
        await request(event.data.requestId)
          .set({ status: 'completed', overall_risk_level: JSON.stringify(event.data.overallRiskLevel), updated_at: at })
          .execute();
        return;
      case 'CddScheduleCreated': {
        const d = event.data;
        await db
          .insertInto('cdd_schedules')
          .values({
            business_id: businessId,
            execution_id: d.executionId,
            customer_unique_id: d.customerUniqueId,
            workflow_slug: d.workflowSlug,
            workflow_name: d.workflowName,
            name: d.name,
            type: d.type,
            status: 'in progress',
            every_days: d.everyDays,
            next_run_at: d.nextRunAt,
            last_request_id: d.requestId ?? null,
            created_at: at,
          })
          .execute();
        return;
      }
      case 'CddScheduleFired':
        await db
          .updateTable('cdd_schedules')
          .set({ next_run_at: event.data.nextRunAt, last_request_id: event.data.requestId })
          .where('business_id', '=', businessId)
          .where('execution_id', '=', event.data.executionId)
          .execute();
        return;
    }
  },
});
