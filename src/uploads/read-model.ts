import { sql, type Kysely } from 'kysely';
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

  /**
   * What a business holds against its quotas at `now` (ISO): upload URLs issued and neither used nor expired, the
   * bytes those may still bring (each URL's limit), the bytes stored, and when the first pending URL expires.
   */
  async usage(
    businessId: string,
    now: string,
  ): Promise<{ pending: number; reservedBytes: number; storedBytes: number; nextExpiry: string | null }> {
    const pending = sql<number>`status = 'authorized' and expires_at > ${now}`;
    const row = await this.#db
      .selectFrom('uploads')
      .select([
        sql<number>`coalesce(sum(case when ${pending} then 1 else 0 end), 0)`.as('pending'),
        sql<number>`coalesce(sum(case when ${pending} then max_bytes else 0 end), 0)`.as('reservedBytes'),
        sql<number>`coalesce(sum(case when status = 'uploaded' then size else 0 end), 0)`.as('storedBytes'),
        sql<string | null>`min(case when ${pending} then expires_at end)`.as('nextExpiry'),
      ])
      .where('business_id', '=', businessId)
      .executeTakeFirstOrThrow();
    return row;
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
