import type { Kysely } from 'kysely';
import { defineProjection } from '../projections/index.js';
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

export interface UserTables {
  users: UsersTable;
}

export const usersProjection = defineProjection<UserTables>({
  name: 'users',
  handles: ['UserCreated'] satisfies UserEvent['type'][],
  tables: [{ name: 'users', key: ['business_id', 'user_id'] }],
  async migrate(db: Kysely<any>) {
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
  },
  async apply(db, stored) {
    const { data } = stored as unknown as UserEvent;
    await db
      .insertInto('users')
      .values({
        business_id: stored.metadata.businessId,
        user_id: data.userId,
        first_name: data.firstName,
        last_name: data.lastName,
        email: data.email,
        role: data.role,
        created_at: stored.recordedAt,
      })
      .execute();
  },
});
