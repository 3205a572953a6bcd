import type { Kysely } from 'kysely';
import { defineProjection } from '../projections/index.js';
import type { UploadAccess, UploadEvent } from './events.js';

export interface UploadsTable {
  key: string;
  business_id: string;
  file_type: string;
  content_type: string;
  access: UploadAccess;
  max_bytes: number;
  expires_at: string;
  status: 'authorized' | 'uploaded';
  size: number | null;
  sha256: string | null;
  authorized_at: string;
  uploaded_at: string | null;
}

export interface UploadTables {
  uploads: UploadsTable;
}

export const uploadsProjection = defineProjection<UploadTables>({
  name: 'uploads',
  handles: ['UploadAuthorized', 'UploadCompleted'] satisfies UploadEvent['type'][],
  tables: [{ name: 'uploads', key: ['key'] }],
  async migrate(db: Kysely<any>) {
    await db.schema
      .createTable('uploads')
      .ifNotExists()
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('business_id', 'text', (c) => c.notNull())
      .addColumn('file_type', 'text', (c) => c.notNull())
      .addColumn('content_type', 'text', (c) => c.notNull())
      .addColumn('access', 'text', (c) => c.notNull())
      .addColumn('max_bytes', 'integer', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('size', 'integer')
      .addColumn('sha256', 'text')
      .addColumn('authorized_at', 'text', (c) => c.notNull())
      .addColumn('uploaded_at', 'text')
      .execute();
    // The quotas sum a business's uploads at every upload URL issued.
    await db.schema.createIndex('uploads_business').ifNotExists().on('uploads').columns(['business_id', 'status']).execute();
  },
  async apply(db, stored) {
    const event = { type: stored.type, data: stored.data } as UploadEvent;
    if (event.type === 'UploadAuthorized') {
      const d = event.data;
      await db
        .insertInto('uploads')
        .values({
          key: d.key,
          business_id: stored.metadata.businessId,
          file_type: d.fileType,
          content_type: d.contentType,
          access: d.access,
          max_bytes: d.maxBytes,
          expires_at: d.expiresAt,
          status: 'authorized',
          size: null,
          sha256: null,
          authorized_at: stored.recordedAt,
          uploaded_at: null,
        })
        .execute();
      return;
    }
    const d = event.data;
    await db
      .updateTable('uploads')
      .set({ status: 'uploaded', size: d.size, sha256: d.sha256, content_type: d.contentType, uploaded_at: stored.recordedAt })
      .where('key', '=', d.key)
      .execute();
  },
});
