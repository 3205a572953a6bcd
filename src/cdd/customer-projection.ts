import type { Kysely } from 'kysely';
import { defineProjection } from '../projections/index.js';
import type { StoredEvent } from '../store/index.js';
import type { CustomerEvent, RequestEvent } from './events.js';
import { customerName } from './names.js';
import type { Checks, Confirmations, CustomerDoc, CustomerRiskSummary } from './types.js';
import { ownSlot } from '../own-keys.js';

/** Per subject: `customer` for the customer itself, `persons[uniqueId]` for a director, signatory or owner. */
export interface BySubject<T> {
  customer: T;
  persons: Record<string, T>;
}

export interface CddCustomersTable {
  business_id: string;
  unique_id: string;
  type: string;
  name: string;
  doc: string;
  confirmations: string;
  checks: string;
  risk: string | null;
  created_at: string;
  updated_at: string;
}

export interface CddCustomerAccountsTable {
  business_id: string;
  account_number: string;
  unique_id: string;
}

export interface CddCustomerTables {
  cdd_customers: CddCustomersTable;
  cdd_customer_accounts: CddCustomerAccountsTable;
}

const HANDLES = [
  'CddCustomerCreated',
  'CddCustomerUpdated',
  'CddCustomerRiskAssessed',
  'CddScreeningConfirmed',
  'CddScreeningWithdrawn',
  'CddCheckRecorded',
] as const;
type Handled = Extract<CustomerEvent | RequestEvent, { type: (typeof HANDLES)[number] }>;

const empty = <T>(): BySubject<T> => ({ customer: {} as T, persons: {} });

async function replaceAccounts(db: Kysely<CddCustomerTables>, businessId: string, doc: CustomerDoc): Promise<void> {
  await db.deleteFrom('cdd_customer_accounts').where('business_id', '=', businessId).where('unique_id', '=', doc.uniqueId).execute();
  const numbers = [...new Set((doc.accounts ?? []).map((a) => a.accountNumber))];
  if (numbers.length === 0) return;
  await db
    .insertInto('cdd_customer_accounts')
    .values(numbers.map((account_number) => ({ business_id: businessId, account_number, unique_id: doc.uniqueId })))
    .onConflict((oc) => oc.doNothing())
    .execute();
}

async function updateJson(
  db: Kysely<CddCustomerTables>,
  businessId: string,
  uniqueId: string,
  column: 'confirmations' | 'checks',
  change: (value: BySubject<any>) => void,
  at?: string,
): Promise<void> {
  const row = await db
    .selectFrom('cdd_customers')
    .select(['confirmations', 'checks'])
    .where('business_id', '=', businessId)
    .where('unique_id', '=', uniqueId)
    .executeTakeFirst();
  if (!row) return;
  const value = JSON.parse(row[column]) as BySubject<any>;
  change(value);
  await db
    .updateTable('cdd_customers')
    .set({ [column]: JSON.stringify(value), ...(at ? { updated_at: at } : {}) })
    .where('business_id', '=', businessId)
    .where('unique_id', '=', uniqueId)
    .execute();
}

export const cddCustomersProjection = defineProjection<CddCustomerTables>({
  name: 'cdd_customers',
  handles: HANDLES,
  tables: [
    { name: 'cdd_customers', key: ['business_id', 'unique_id'] },
    { name: 'cdd_customer_accounts', key: ['business_id', 'account_number'] },
  ],
  async migrate(db: Kysely<any>) {
    await db.schema
      .createTable('cdd_customers')
      .ifNotExists()
      .addColumn('business_id', 'text', (c) => c.notNull())
      .addColumn('unique_id', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('doc', 'text', (c) => c.notNull())
      .addColumn('confirmations', 'text', (c) => c.notNull())
      .addColumn('checks', 'text', (c) => c.notNull())
      .addColumn('risk', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('cdd_customers_pk', ['business_id', 'unique_id'])
      .execute();
    await db.schema
      .createTable('cdd_customer_accounts')
      .ifNotExists()
      .addColumn('business_id', 'text', (c) => c.notNull())
      .addColumn('account_number', 'text', (c) => c.notNull())
      .addColumn('unique_id', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('cdd_customer_accounts_pk', ['business_id', 'account_number'])
      .execute();
  },
  async apply(db, stored: StoredEvent) {
    const event = stored as unknown as Handled;
    const businessId = stored.metadata.businessId;
    switch (event.type) {
      case 'CddCustomerCreated': {
        const doc = event.data.customer;
        await db
          .insertInto('cdd_customers')
          .values({
            business_id: businessId,
            unique_id: doc.uniqueId,
            type: doc.type,
            name: customerName(doc),
            doc: JSON.stringify(doc),
            confirmations: JSON.stringify(empty<Confirmations>()),
            checks: JSON.stringify(empty<Checks>()),
            risk: null,
            created_at: stored.recordedAt,
            updated_at: stored.recordedAt,
          })
          .execute();
        await replaceAccounts(db, businessId, doc);
        return;
      }
      case 'CddCustomerUpdated': {
        const doc = event.data.customer;
        await db
          .updateTable('cdd_customers')
          .set({ doc: JSON.stringify(doc), name: customerName(doc), updated_at: stored.recordedAt })
          .where('business_id', '=', businessId)
          .where('unique_id', '=', doc.uniqueId)
          .execute();
        await replaceAccounts(db, businessId, doc);
        return;
      }
      case 'CddCustomerRiskAssessed':
        await db
          .updateTable('cdd_customers')
          .set({ risk: JSON.stringify(event.data.summary satisfies CustomerRiskSummary) })
          .where('business_id', '=', businessId)
          .where('unique_id', '=', event.data.uniqueId)
          .execute();
        return;
      case 'CddScreeningWithdrawn': {
        const { subject, kind, confirmationId } = event.data;
        await updateJson(
          db,
          businessId,
          event.data.uniqueId,
          'confirmations',
          (all: BySubject<Confirmations>) => {
            const target = subject.role === 'customer' ? all.customer : all.persons[subject.uniqueId];
            if (target?.[kind]?.id === confirmationId) delete target[kind];
          },
          stored.recordedAt,
        );
        return;
      }
      case 'CddScreeningConfirmed': {
        const { subject, kind, confirmation } = event.data;
        await updateJson(
          db,
          businessId,
          event.data.uniqueId,
          'confirmations',
          (all: BySubject<Confirmations>) => {
            const target = subject.role === 'customer' ? all.customer : ownSlot<Confirmations>(all.persons, subject.uniqueId, () => ({}));
            target[kind] = confirmation;
          },
          stored.recordedAt,
        );
        return;
      }
      case 'CddCheckRecorded': {
        const { subject, check } = event.data;
        await updateJson(db, businessId, event.data.customerUniqueId, 'checks', (all: BySubject<Checks>) => {
          const target = subject.role === 'customer' ? all.customer : ownSlot<Checks>(all.persons, subject.uniqueId, () => ({}));
          target[check.checkId] = check;
        });
        return;
      }
    }
  },
});
