import type { Kysely } from 'kysely';
import { defineProjection } from '../projections/index.js';
import { insertAll, type StoredEvent } from '../store/index.js';
import type { WebhookEvent } from './events.js';

export interface SubscribedEndpointsTable {
  endpoint_id: string;
  business_id: string;
  url: string;
  /** JSON array of event types. */
  event_types: string;
  description: string;
  secret: string;
  previous_secret: string | null;
  previous_valid_until: string | null;
  /** The log position of its creation: it receives the events after it, never older ones. */
  created_position: number;
  created_at: string;
  updated_at: string;
}

/** Which subscribed endpoint a delivery goes to, so the worker signs it with that endpoint's secret. */
export interface DeliveryEndpointsTable {
  delivery_id: string;
  endpoint_id: string;
}

export interface SubscribedEndpointTables {
  webhook_subscribed_endpoints: SubscribedEndpointsTable;
  webhook_delivery_endpoints: DeliveryEndpointsTable;
}

export const subscribedEndpointsProjection = defineProjection<SubscribedEndpointTables>({
  name: 'webhook-subscribed-endpoints',
  handles: [
    'WebhookEndpointCreated',
    'WebhookEndpointChanged',
    'WebhookEndpointSecretRotated',
    'WebhookEndpointDeleted',
    'WebhookDeliveryScheduled',
    'WebhookDeliveriesScheduled',
  ] satisfies WebhookEvent['type'][],
  tables: [
    { name: 'webhook_subscribed_endpoints', key: ['endpoint_id'] },
    { name: 'webhook_delivery_endpoints', key: ['delivery_id'] },
  ],
  async migrate(db: Kysely<any>) {
    await db.schema
      .createTable('webhook_subscribed_endpoints')
      .ifNotExists()
      .addColumn('endpoint_id', 'text', (c) => c.primaryKey())
      .addColumn('business_id', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('event_types', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('secret', 'text', (c) => c.notNull())
      .addColumn('previous_secret', 'text')
      .addColumn('previous_valid_until', 'text')
      .addColumn('created_position', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('webhook_subscribed_endpoints_business')
      .ifNotExists()
      .on('webhook_subscribed_endpoints')
      .columns(['business_id', 'created_at'])
      .execute();
    await db.schema
      .createTable('webhook_delivery_endpoints')
      .ifNotExists()
      .addColumn('delivery_id', 'text', (c) => c.primaryKey())
      .addColumn('endpoint_id', 'text', (c) => c.notNull())
      .execute();
  },
  async apply(db, stored: StoredEvent) {
    const event = stored as unknown as WebhookEvent;
    const at = stored.recordedAt;
    switch (event.type) {
      case 'WebhookEndpointCreated': {
        const d = event.data;
        await db
          .insertInto('webhook_subscribed_endpoints')
          .values({
            endpoint_id: d.endpointId,
            business_id: stored.metadata.businessId,
            url: d.url,
            event_types: JSON.stringify(d.eventTypes),
            description: d.description,
            secret: d.secret,
            previous_secret: null,
            previous_valid_until: null,
            created_position: stored.position,
            created_at: d.createdAt,
            updated_at: d.createdAt,
          })
          .execute();
        return;
      }
      case 'WebhookEndpointChanged': {
        const { endpointId, url, eventTypes, description, changedAt } = event.data;
        await db
          .updateTable('webhook_subscribed_endpoints')
          .set({
            ...(url === undefined ? {} : { url }),
            ...(eventTypes === undefined ? {} : { event_types: JSON.stringify(eventTypes) }),
            ...(description === undefined ? {} : { description }),
            updated_at: changedAt,
          })
          .where('endpoint_id', '=', endpointId)
          .execute();
        return;
      }
      case 'WebhookEndpointSecretRotated': {
        const d = event.data;
        await db
          .updateTable('webhook_subscribed_endpoints')
          .set({ secret: d.secret, previous_secret: d.previousSecret, previous_valid_until: d.previousValidUntil, updated_at: at })
          .where('endpoint_id', '=', d.endpointId)
          .execute();
        return;
      }
      case 'WebhookEndpointDeleted':
        await db.deleteFrom('webhook_subscribed_endpoints').where('endpoint_id', '=', event.data.endpointId).execute();
        return;
      case 'WebhookDeliveryScheduled':
        if (event.data.endpointId === undefined) return;
        await db
          .insertInto('webhook_delivery_endpoints')
          .values({ delivery_id: event.data.deliveryId, endpoint_id: event.data.endpointId })
          .execute();
        return;
      case 'WebhookDeliveriesScheduled': {
        const rows = event.data.deliveries.flatMap((d) =>
          d.endpointId === undefined ? [] : [{ delivery_id: d.deliveryId, endpoint_id: d.endpointId }],
        );
        await insertAll(db, 'webhook_delivery_endpoints', rows);
        return;
      }
    }
  },
});
