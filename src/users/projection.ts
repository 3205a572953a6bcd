import type { Kysely } from 'kysely';
import { defineProjection } from '../projections/index.js';
import type { StoredEvent } from '../store/index.js';
import type { UserEvent } from './events.js';

export interface UsersTable {
  business_id: string;
  user_id: string;
  first_name: string;
  last_name: string;
  email: string;
  role: string;
  created_at: string;
}

/** A user's password hash and sign-in throttle; no row until a password is set. */
export interface UserCredentialsTable {
  business_id: string;
  user_id: string;
  password_hash: string;
  must_change: number;
  failures: number;
  locked_until: string | null;
}

/** Console sessions, by the SHA-256 of their token (the token itself lives only in the browser's cookie). */
export interface UserSessionsTable {
  session_hash: string;
  business_id: string;
  user_id: string;
  started_at: string;
  expires_at: string;
  ended_at: string | null;
}

/** Browsers that have signed in to an account: the SHA-256 of their device cookie. */
export interface UserDevicesTable {
  device_hash: string;
  business_id: string;
  user_id: string;
  first_seen: string;
}

export interface UserTables {
  users: UsersTable;
  user_credentials: UserCredentialsTable;
  user_sessions: UserSessionsTable;
  user_devices: UserDevicesTable;
}

async function migrate(db: Kysely<any>) {
  await db.schema
    .createTable('users')
    .ifNotExists()
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('first_name', 'text', (c) => c.notNull())
    .addColumn('last_name', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('users_pk', ['business_id', 'user_id'])
    .addUniqueConstraint('users_email', ['business_id', 'email'])
    .execute();
  await db.schema.createIndex('users_by_email').ifNotExists().on('users').column('email').execute();
  await db.schema
    .createTable('user_credentials')
    .ifNotExists()
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('must_change', 'integer', (c) => c.notNull())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('locked_until', 'text')
    .addPrimaryKeyConstraint('user_credentials_pk', ['business_id', 'user_id'])
    .execute();
  await db.schema
    .createTable('user_sessions')
    .ifNotExists()
    .addColumn('session_hash', 'text', (c) => c.primaryKey())
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('ended_at', 'text')
    .execute();
  await db.schema
    .createTable('user_devices')
    .ifNotExists()
    .addColumn('device_hash', 'text', (c) => c.primaryKey())
    .addColumn('business_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('first_seen', 'text', (c) => c.notNull())
    .execute();
}

export const usersProjection = defineProjection<UserTables>({
  name: 'users',
  handles: [
    'UserCreated',
    'UserPasswordSet',
    'UserSignInFailed',
    'UserSignInUnlocked',
    'UserSignedIn',
    'UserSessionActive',
    'UserSignedOut',
  ] satisfies UserEvent['type'][],
  tables: [
    { name: 'users', key: ['business_id', 'user_id'] },
    { name: 'user_credentials', key: ['business_id', 'user_id'] },
    { name: 'user_sessions', key: ['session_hash'] },
    { name: 'user_devices', key: ['device_hash'] },
  ],
  migrate,
  async apply(db, stored: StoredEvent) {
    const event = { type: stored.type, data: stored.data } as UserEvent;
    const business_id = stored.metadata.businessId;
    const user = (q: any) => q.where('business_id', '=', business_id).where('user_id', '=', event.data.userId);
    switch (event.type) {
      case 'UserCreated': {
        const { data } = event;
        await db
          .insertInto('users')
          .values({
            business_id,
            user_id: data.userId,
            first_name: data.firstName,
            last_name: data.lastName,
            email: data.email,
            role: data.role,
            created_at: stored.recordedAt,
          })
          .execute();
        return;
      }
      case 'UserPasswordSet': {
        const row = { password_hash: event.data.hash, must_change: event.data.mustChange ? 1 : 0, failures: 0, locked_until: null };
        await db
          .insertInto('user_credentials')
          .values({ business_id, user_id: event.data.userId, ...row })
          .onConflict((oc) => oc.columns(['business_id', 'user_id']).doUpdateSet(row))
          .execute();
        return;
      }
      case 'UserSignInFailed':
        await user(
          db.updateTable('user_credentials').set({ failures: event.data.failures, locked_until: event.data.lockedUntil }),
        ).execute();
        return;
      case 'UserSignInUnlocked':
        await user(db.updateTable('user_credentials').set({ failures: 0, locked_until: null })).execute();
        return;
      case 'UserSessionActive':
        await db
          .updateTable('user_sessions')
          .set({ expires_at: event.data.expiresAt })
          .where('session_hash', '=', event.data.sessionHash)
          .execute();
        return;
      case 'UserSignedIn':
        await user(db.updateTable('user_credentials').set({ failures: 0, locked_until: null })).execute();
        if (event.data.deviceHash)
          await db
            .insertInto('user_devices')
            .values({ device_hash: event.data.deviceHash, business_id, user_id: event.data.userId, first_seen: stored.recordedAt })
            .onConflict((oc) => oc.column('device_hash').doNothing())
            .execute();
        await db
          .insertInto('user_sessions')
          .values({
            session_hash: event.data.sessionHash,
            business_id,
            user_id: event.data.userId,
            started_at: stored.recordedAt,
            expires_at: event.data.expiresAt,
            ended_at: null,
          })
          .execute();
        return;
      case 'UserSignedOut':
        await db
          .updateTable('user_sessions')
          .set({ ended_at: stored.recordedAt })
          .where('session_hash', '=', event.data.sessionHash)
          .where('ended_at', 'is', null)
          .execute();
        return;
    }
  },
});
