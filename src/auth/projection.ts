import type { Kysely } from 'kysely';
import { defineProjection } from '../projections/index.js';
import type { AuthEvent } from './events.js';

export interface ApiKeysTable {
  api_key: string;
  secret_hash: string;
  business_id: string;
  name: string;
  user_id: string | null;
  webhook_secret: string;
  previous_webhook_secret: string | null;
  previous_valid_until: string | null;
  revoked: number;
  created_at: string;
}

export interface AuthTables {
  api_keys: ApiKeysTable;
}

export const apiKeysProjection = defineProjection<AuthTables>({
  name: 'api_keys',
  handles: ['ApiKeyIssued', 'ApiKeyRevoked', 'ApiKeyBoundToUser', 'WebhookSecretRotated'] satisfies AuthEvent['type'][],
  tables: [{ name: 'api_keys', key: ['api_key'] }],
  async migrate(db: Kysely<any>) {
    await db.schema
      .createTable('api_keys')
      .ifNotExists()
      .addColumn('api_key', 'text', (c) => c.primaryKey())
      .addColumn('secret_hash', 'text', (c) => c.notNull())
      .addColumn('business_id', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text')
      .addColumn('webhook_secret', 'text', (c) => c.notNull())
      .addColumn('previous_webhook_secret', 'text')
      .addColumn('previous_valid_until', 'text')
      .addColumn('revoked', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
  },
  async apply(db, stored) {
    const event = stored as unknown as AuthEvent;
    switch (event.type) {
      case 'ApiKeyIssued':
        await db
          .insertInto('api_keys')
          .values({
            api_key: event.data.apiKey,
            secret_hash: event.data.secretHash,
            business_id: event.data.businessId,
            name: event.data.name,
            user_id: event.data.userId ?? null,
            webhook_secret: event.data.webhookSecret,
            previous_webhook_secret: null,
            previous_valid_until: null,
            revoked: 0,
            created_at: stored.recordedAt,
          })
          .execute();
        return;
      case 'ApiKeyRevoked':
        await db.updateTable('api_keys').set({ revoked: 1 }).where('api_key', '=', event.data.apiKey).execute();
        return;
      case 'ApiKeyBoundToUser':
        await db.updateTable('api_keys').set({ user_id: event.data.userId }).where('api_key', '=', event.data.apiKey).execute();
        return;
      case 'WebhookSecretRotated':
        await db
          .updateTable('api_keys')
          .set({
            webhook_secret: event.data.webhookSecret,
            previous_webhook_secret: event.data.previousSecret,
            previous_valid_until: event.data.previousValidUntil,
          })
          .where('api_key', '=', event.data.apiKey)
          .execute();
    }
  },
});
