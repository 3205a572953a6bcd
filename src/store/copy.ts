import { createHash } from 'node:crypto';
import { CompiledQuery, type Kysely } from 'kysely';
import { backendOf } from './backend.js';
import { insertEvents } from './batch.js';
import { ADVISORY_KEYS } from './database.js';
import { type FileStore, readWhole } from './files.js';
import { GENESIS_HASH, rowHash } from './hash.js';
import { migrateStore, type EventsTable } from './schema.js';

export interface CopyReport {
  events: number;
  /** The last event's hash: the same on both sides once the copy is done. */
  head: string;
}

const PAGE = 5000;

/**
 * Copies the whole log from `source` into the empty log of `target`, row by row as stored (positions, ids,
 * texts and hashes unchanged), recomputing every link of the hash chain and checking that positions have no gap
 * before a page is written: a broken source stops the copy at the first bad row, naming it. Each page commits in
 * one transaction holding the log's append lock, so a node started on the target early waits rather than interleaves.
 */
export async function copyLog(source: Kysely<any>, target: Kysely<any>, onPage?: (copied: number) => void): Promise<CopyReport> {
  await migrateStore(target);
  const existing = await target
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  if (Number(existing.n) > 0) throw new Error(`the target already holds ${existing.n} events; store copy fills an empty log only`);
  const backend = backendOf(target);
  let previous = GENESIS_HASH;
  let after = 0;
  for (;;) {
    const rows = (await source
      .selectFrom('events')
      .selectAll()
      .where('global_position', '>', after)
      .orderBy('global_position')
      .limit(PAGE)
      .execute()) as EventsTable[];
    if (rows.length === 0) break;
    for (const row of rows) {
      if (row.global_position !== after + 1) throw new Error(`the source log has a gap: position ${row.global_position} follows ${after}`);
      if (rowHash(previous, row) !== row.hash)
        throw new Error(
          `the source's hash chain is broken at position ${row.global_position} (event ${row.event_id}); nothing after it was copied`,
        );
      previous = row.hash;
      after = row.global_position;
    }
    await target.transaction().execute(async (trx) => {
      if (backend === 'postgres') await trx.executeQuery(CompiledQuery.raw(`select pg_advisory_xact_lock(${ADVISORY_KEYS.append})`));
      for (const insert of insertEvents(backend, rows)) await trx.executeQuery(insert);
    });
    onPage?.(after);
  }
  return { events: after, head: previous };
}

/** A file the log names, with the SHA-256 of its bytes when the log recorded it. */
export interface NamedFile {
  key: string;
  sha256?: string;
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/**
 * Copies the files a domain keeps beside the log (uploads, imported lists and feeds) from one file store to
 * another, one at a time (each is held in memory once), checking each: the source's bytes against the hash the log
 * recorded, and the bytes read back from the target against the source's. A missing or altered file stops the copy,
 * naming it.
 */
export async function copyFiles(
  source: FileStore,
  target: FileStore,
  files: readonly NamedFile[],
): Promise<{ files: number; bytes: number }> {
  let bytes = 0;
  for (const file of files) {
    const content = await readWhole(source, file.key).catch((error: unknown) => {
      throw new Error(`file ${file.key} could not be read from the source: ${(error as Error).message}`);
    });
    const hash = sha256(content);
    if (file.sha256 && hash !== file.sha256)
      throw new Error(`file ${file.key} in the source does not hash to ${file.sha256}, as the log recorded`);
    await target.put(file.key, content);
    if (sha256(await readWhole(target, file.key)) !== hash)
      throw new Error(`file ${file.key} read back from the target differs from the source`);
    bytes += content.length;
  }
  return { files: files.length, bytes };
}
