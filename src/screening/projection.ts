import type { Kysely } from 'kysely';
import { defineProjection } from '../projections/index.js';
import type { StoredEvent } from '../store/index.js';
import type { AmlEvent, CheckKind, CheckStatus, ListImportedData } from './events.js';

export interface ScreeningChecksTable {
  check_id: string;
  business_id: string;
  kind: CheckKind;
  status: CheckStatus;
  query: string;
  destination_url: string | null;
  destination_source: string | null;
  requested_by: string;
  result: string | null;
  list_versions: string;
  delivery_id: string | null;
  error: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

export interface ScreeningListsTable {
  list: string;
  type: ListImportedData['type'];
  format: string;
  version: string;
  content_hash: string;
  records: number;
  published_at: string | null;
  file: string | null;
  imported_at: string;
}

export interface AmlTables {
  screening_checks: ScreeningChecksTable;
  screening_lists: ScreeningListsTable;
}

export const amlProjection = defineProjection<AmlTables>({
  name: 'aml',
  handles: [
    'ScreeningCheckRequested',
    'ScreeningCheckCompleted',
    'ScreeningCheckFailed',
    'ScreeningListImported',
  ] satisfies AmlEvent['type'][],
  tables: [
    { name: 'screening_checks', key: ['check_id'] },
    { name: 'screening_lists', key: ['list'] },
  ],
  async migrate(db: Kysely<any>) {
    await db.schema
      .createTable('screening_checks')
      .ifNotExists()
      .addColumn('check_id', 'text', (c) => c.primaryKey())
      .addColumn('business_id', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('query', 'text', (c) => c.notNull())
      .addColumn('destination_url', 'text')
      .addColumn('destination_source', 'text')
      .addColumn('requested_by', 'text', (c) => c.notNull())
      .addColumn('result', 'text')
      .addColumn('list_versions', 'text', (c) => c.notNull())
      .addColumn('delivery_id', 'text')
      .addColumn('error', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('completed_at', 'text')
      .execute();
    await db.schema
      .createIndex('screening_checks_pending')
      .ifNotExists()
      .on('screening_checks')
      .columns(['status', 'created_at'])
      .execute();
    await db.schema
      .createTable('screening_lists')
      .ifNotExists()
      .addColumn('list', 'text', (c) => c.primaryKey())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('format', 'text', (c) => c.notNull())
      .addColumn('version', 'text', (c) => c.notNull())
      .addColumn('content_hash', 'text', (c) => c.notNull())
      .addColumn('records', 'integer', (c) => c.notNull())
      .addColumn('published_at', 'text')
      .addColumn('file', 'text')
      .addColumn('imported_at', 'text', (c) => c.notNull())
      .execute();
  },
  async apply(db, stored: StoredEvent) {
    const event = stored as unknown as AmlEvent;
    const at = stored.recordedAt;
    switch (event.type) {
      case 'ScreeningCheckRequested': {
        const d = event.data;
        await db
          .insertInto('screening_checks')
          .values({
            check_id: d.checkId,
            business_id: stored.metadata.businessId,
            kind: d.kind,
            status: 'pending',
            query: JSON.stringify(d.query),
            destination_url: d.destination?.url ?? null,
            destination_source: d.destination?.source ?? null,
            requested_by: d.requestedBy,
            result: null,
            list_versions: '[]',
            delivery_id: null,
            error: null,
            created_at: d.requestedAt,
            updated_at: d.requestedAt,
            completed_at: null,
          })
          .execute();
        return;
      }
      case 'ScreeningCheckCompleted': {
        const d = event.data;
        await db
          .updateTable('screening_checks')
          .set({
            status: 'completed',
            result: JSON.stringify(d.result),
            list_versions: JSON.stringify(d.listVersions),
            delivery_id: d.deliveryId,
            updated_at: d.completedAt,
            completed_at: d.completedAt,
          })
          .where('check_id', '=', d.checkId)
          .execute();
        return;
      }
      case 'ScreeningCheckFailed':
        await db
          .updateTable('screening_checks')
          .set({ status: 'failed', error: event.data.error, updated_at: event.data.failedAt })
          .where('check_id', '=', event.data.checkId)
          .execute();
        return;
      case 'ScreeningListImported': {
        const d = event.data;
        const row = {
          type: d.type,
          format: d.format,
          version: d.version,
          content_hash: d.contentHash,
          records: d.records,
          published_at: d.publishedAt,
          file: d.file,
          imported_at: at,
        };
        await db
          .insertInto('screening_lists')
          .values({ list: d.list, ...row })
          .onConflict((oc) => oc.column('list').doUpdateSet(row))
          .execute();
        return;
      }
    }
  },
});
