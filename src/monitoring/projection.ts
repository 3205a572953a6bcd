// Read models for the low-volume list changes only: blacklist entries (for paged listing) and saved devices.
// Decisions get no read-model row: each lives on its own stream, found by transaction id or reference.
import type { Kysely } from 'kysely';
import { defineProjection } from '../projections/index.js';
import type { MonitoringEvent } from './events.js';

export interface BlacklistTable {
  business_id: string;
  list: string;
  value: string;
  added_at: string;
  added_by: string | null;
}

export interface DevicesTable {
  business_id: string;
  customer_id: string;
  device_id: string;
  details: string;
  saved_at: string;
}

export interface MonitoringTables {
  tm_blacklist: BlacklistTable;
  tm_devices: DevicesTable;
}

export const monitoringProjection = defineProjection<MonitoringTables>({
  name: 'transaction-monitoring-lists',
  handles: ['BlacklistEntryAdded', 'BlacklistEntryRemoved', 'CustomerDeviceSaved'] satisfies MonitoringEvent['type'][],
  tables: [
    { name: 'tm_blacklist', key: ['business_id', 'list', 'value'] },
    { name: 'tm_devices', key: ['business_id', 'customer_id', 'device_id'] },
  ],
  async migrate(db: Kysely<any>) {
    await db.schema
      .createTable('tm_blacklist')
      .ifNotExists()
      .addColumn('business_id', 'text', (c) => c.notNull())
      .addColumn('list', 'text', (c) => c.notNull())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('added_at', 'text', (c) => c.notNull())
      .addColumn('added_by', 'text')
      .addPrimaryKeyConstraint('tm_blacklist_pk', ['business_id', 'list', 'value'])
      .execute();
    await db.schema
      .createTable('tm_devices')
      .ifNotExists()
      .addColumn('business_id', 'text', (c) => c.notNull())
      .addColumn('customer_id', 'text', (c) => c.notNull())
      .addColumn('device_id', 'text', (c) => c.notNull())
      .addColumn('details', 'text', (c) => c.notNull())
      .addColumn('saved_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('tm_devices_pk', ['business_id', 'customer_id', 'device_id'])
      .execute();
  },
  async apply(db, stored) {
    const event = { type: stored.type, data: stored.data } as MonitoringEvent;
    const business_id = stored.metadata.businessId;
    switch (event.type) {
      case 'BlacklistEntryAdded':
        await db
          .insertInto('tm_blacklist')
          .values({ business_id, list: event.data.list, value: event.data.value, added_at: stored.recordedAt, added_by: stored.metadata.actor ?? null })
          .execute();
        break;
      case 'BlacklistEntryRemoved':
        await db.deleteFrom('tm_blacklist').where('business_id', '=', business_id).where('list', '=', event.data.list).where('value', '=', event.data.value).execute();
        break;
      case 'CustomerDeviceSaved': {
        const { customerId, device } = event.data;
        const row = { business_id, customer_id: customerId, device_id: device.deviceId, details: JSON.stringify(device), saved_at: stored.recordedAt };
        await db
          .insertInto('tm_devices')
          .values(row)
          .onConflict((oc) => oc.columns(['business_id', 'customer_id', 'device_id']).doUpdateSet({ details: row.details, saved_at: row.saved_at }))
          .execute();
        break;
      }
      case 'TransactionDecided':
        break;
    }
  },
});
