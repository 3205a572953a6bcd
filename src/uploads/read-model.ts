import type { Kysely } from 'kysely';
import type { UploadsTable, UploadTables } from './projection.js';

/** Reads of the uploads table; every lookup is scoped by business, so another business's key reads as unknown. */
export class UploadReadModel {
  readonly #db: Kysely<UploadTables>;
  constructor(db: Kysely<any>) {
    this.#db = db;
  }

  async byKey(key: string): Promise<UploadsTable | undefined> {
    return this.#db.selectFrom('uploads').selectAll().where('key', '=', key).executeTakeFirst();
  }

  async find(businessId: string, key: string): Promise<UploadsTable | undefined> {
    return this.#db.selectFrom('uploads').selectAll().where('key', '=', key).where('business_id', '=', businessId).executeTakeFirst();
  }

  /** A completed upload of the business as a case refers to it, or undefined when it was never uploaded. */
  async attachment(
    businessId: string,
    key: string,
  ): Promise<{ key: string; contentType: string; size: number; sha256: string } | undefined> {
    const row = await this.find(businessId, key);
    if (row?.status !== 'uploaded') return undefined;
    return { key: row.key, contentType: row.content_type, size: row.size!, sha256: row.sha256! };
  }
}
