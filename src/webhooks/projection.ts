import type { Kysely } from 'kysely';
import { defineProjection } from '../projections/index.js';
import { insertAll, ROWS_PER_STATEMENT, type StoredEvent } from '../store/index.js';
import type { AttemptFinishedData, AttemptOutcome, DeliveryScheduledData, DeliveryStatus, WebhookEvent } from './events.js';

export interface WebhookEndpointsTable {
  business_id: string;
  url: string;
  updated_at: string;
}

export interface WebhookDeliveriesTable {
  delivery_id: string;
  business_id: string;
  webhook_id: string;
  url: string;
  event_type: string;
  subject: string;
  body: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string | null;
  lease_until: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  /** The version of the delivery's own stream this row last reflected; null when it has none (scheduled in a page) or was projected before it was kept. */
  stream_version: number | null;
}

export interface WebhookAttemptsTable {
  delivery_id: string;
  attempt: number;
  started_at: string;
  finished_at: string | null;
  outcome: AttemptOutcome | null;
  status_code: number | null;
  error: string | null;
  duration_ms: number | null;
}

export interface WebhookTables {
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}

const FINISHED: Record<AttemptOutcome, DeliveryStatus> = { delivered: 'delivered', retry: 'pending', gave_up: 'failed' };

export const webhooksProjection = defineProjection<WebhookTables>({
  name: 'webhooks',
  handles: [
    'WebhookEndpointSet',
    'WebhookDeliveryScheduled',
    'WebhookDeliveriesScheduled',
    'WebhookAttemptStarted',
    'WebhookAttemptsStarted',
    'WebhookAttemptFinished',
    'WebhookAttemptsFinished',
    'WebhookRedeliveryRequested',
  ] satisfies WebhookEvent['type'][],
  tables: [
    { name: 'webhook_endpoints', key: ['business_id'] },
    { name: 'webhook_deliveries', key: ['delivery_id'] },
    { name: 'webhook_attempts', key: ['delivery_id', 'attempt'] },
  ],
  async migrate(db: Kysely<any>) {
    await db.schema
      .createTable('webhook_endpoints')
      .ifNotExists()
      .addColumn('business_id', 'text', (c) => c.primaryKey())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('webhook_deliveries')
      .ifNotExists()
      .addColumn('delivery_id', 'text', (c) => c.primaryKey())
      .addColumn('business_id', 'text', (c) => c.notNull())
      .addColumn('webhook_id', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('event_type', 'text', (c) => c.notNull())
      .addColumn('subject', 'text', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull())
      .addColumn('next_attempt_at', 'text')
      .addColumn('lease_until', 'text')
      .addColumn('last_status_code', 'integer')
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('stream_version', 'integer')
      .execute();
    const deliveries = (await db.introspection.getTables()).find((t) => t.name === 'webhook_deliveries');
    if (!deliveries?.columns.some((c) => c.name === 'stream_version'))
      await db.schema.alterTable('webhook_deliveries').addColumn('stream_version', 'integer').execute();
    await db.schema
      .createIndex('webhook_deliveries_due')
      .ifNotExists()
      .on('webhook_deliveries')
      .columns(['status', 'next_attempt_at'])
      .execute();
    await db.schema
      .createIndex('webhook_deliveries_business')
      .ifNotExists()
      .on('webhook_deliveries')
      .columns(['business_id', 'status', 'created_at'])
      .execute();
    await db.schema
      .createTable('webhook_attempts')
      .ifNotExists()
      .addColumn('delivery_id', 'text', (c) => c.notNull())
      .addColumn('attempt', 'integer', (c) => c.notNull())
      .addColumn('started_at', 'text', (c) => c.notNull())
      .addColumn('finished_at', 'text')
      .addColumn('outcome', 'text')
      .addColumn('status_code', 'integer')
      .addColumn('error', 'text')
      .addColumn('duration_ms', 'integer')
      .addPrimaryKeyConstraint('webhook_attempts_pk', ['delivery_id', 'attempt'])
      .execute();
  },
  async apply(db, stored: StoredEvent) {
    const event = stored as unknown as WebhookEvent;
    const at = stored.recordedAt;
    switch (event.type) {
      case 'WebhookEndpointSet':
        await db
          .insertInto('webhook_endpoints')
          .values({ business_id: stored.metadata.businessId, url: event.data.url, updated_at: at })
          .onConflict((oc) => oc.column('business_id').doUpdateSet({ url: event.data.url, updated_at: at }))
          .execute();
        return;
      case 'WebhookDeliveryScheduled':
        await db
          .insertInto('webhook_deliveries')
          .values(scheduledRow(event.data, event.data.businessId ?? stored.metadata.businessId, at, stored.streamVersion))
          .execute();
        return;
      case 'WebhookDeliveriesScheduled': {
        const rows = event.data.deliveries.map((d) => scheduledRow(d, d.businessId, at, null));
        await insertAll(db, 'webhook_deliveries', rows);
        return;
      }
      case 'WebhookAttemptStarted': {
        const d = event.data;
        await started(db, [d], d.startedAt, d.leaseUntil, at, stored.streamVersion);
        return;
      }
      case 'WebhookAttemptsStarted': {
        const d = event.data;
        await started(db, d.attempts, d.startedAt, d.leaseUntil, at, null);
        return;
      }
      case 'WebhookAttemptFinished':
        await finished(db, event.data, at, stored.streamVersion);
        return;
      case 'WebhookAttemptsFinished':
        for (const outcome of event.data.outcomes) await finished(db, outcome, at, null);
        return;
      case 'WebhookRedeliveryRequested': {
        const requestedAt = event.data.requestedAt;
        await db
          .updateTable('webhook_deliveries')
          .set({ status: 'pending', next_attempt_at: requestedAt, lease_until: null, updated_at: at, stream_version: stored.streamVersion })
          .where('delivery_id', '=', event.data.deliveryId)
          // A claim recorded meanwhile holds the delivery: the request came too late, as the service would have said.
          .where((eb) => eb.or([eb('status', '!=', 'delivering'), eb('lease_until', '<=', requestedAt)]))
          .execute();
        return;
      }
    }
  },
});

function scheduledRow(d: DeliveryScheduledData, businessId: string, at: string, streamVersion: number | null): WebhookDeliveriesTable {
  return {
    delivery_id: d.deliveryId,
    business_id: businessId,
    webhook_id: d.webhookId,
    url: d.url,
    event_type: d.eventType,
    subject: d.subject,
    body: d.body,
    status: 'pending',
    attempts: 0,
    next_attempt_at: d.scheduledAt,
    lease_until: null,
    last_status_code: null,
    last_error: null,
    created_at: at,
    updated_at: at,
    stream_version: streamVersion,
  };
}

/** Claimed attempts: the claim was appended at the version its worker read, so it holds whatever the rows say. */
async function started(
  db: Kysely<WebhookTables>,
  attempts: readonly { deliveryId: string; attempt: number }[],
  startedAt: string,
  leaseUntil: string,
  at: string,
  streamVersion: number | null,
): Promise<void> {
  const byAttempt = new Map<number, string[]>();
  for (const a of attempts) byAttempt.set(a.attempt, [...(byAttempt.get(a.attempt) ?? []), a.deliveryId]);
  for (const [attempt, ids] of byAttempt) {
    for (let i = 0; i < ids.length; i += ROWS_PER_STATEMENT) {
      const set = { status: 'delivering' as const, attempts: attempt, lease_until: leaseUntil, updated_at: at };
      await db
        .updateTable('webhook_deliveries')
        .set(streamVersion === null ? set : { ...set, stream_version: streamVersion })
        .where('delivery_id', 'in', ids.slice(i, i + ROWS_PER_STATEMENT))
        .execute();
    }
  }
  await insertAll(
    db,
    'webhook_attempts',
    attempts.map((a) => ({
      delivery_id: a.deliveryId,
      attempt: a.attempt,
      started_at: startedAt,
      finished_at: null,
      outcome: null,
      status_code: null,
      error: null,
      duration_ms: null,
    })),
  );
}

/** An attempt's outcome goes into its log row; it moves the delivery only while that attempt is still the current one. */
async function finished(db: Kysely<WebhookTables>, d: AttemptFinishedData, at: string, streamVersion: number | null): Promise<void> {
  const set = {
    status: FINISHED[d.outcome],
    next_attempt_at: d.nextAttemptAt,
    lease_until: null,
    last_status_code: d.statusCode,
    last_error: d.error,
    updated_at: at,
  };
  await db
    .updateTable('webhook_deliveries')
    .set(streamVersion === null ? set : { ...set, stream_version: streamVersion })
    .where('delivery_id', '=', d.deliveryId)
    .where('status', '=', 'delivering')
    .where('attempts', '=', d.attempt)
    .execute();
  await db
    .updateTable('webhook_attempts')
    .set({ finished_at: d.finishedAt, outcome: d.outcome, status_code: d.statusCode, error: d.error, duration_ms: d.durationMs })
    .where('delivery_id', '=', d.deliveryId)
    .where('attempt', '=', d.attempt)
    .execute();
}
