import { join } from 'node:path';
import Database from 'better-sqlite3';
import { rowHash } from '../../src/store/hash.js';
import type { EventsTable } from '../../src/store/schema.js';

/** A row of the events table, as the insider reads and writes it. */
export type Row = EventsTable;

/**
 * What an insider with write access to the file does: drops the append-only triggers, edits rows, and recomputes every
 * later chain hash so that `replay --verify` still reports the chain intact.
 */
export function insider(dataDir: string, edit: (rows: Row[], db: Database.Database) => Row[]): void {
  const db = new Database(join(dataDir, 'compliance.db'));
  db.exec('DROP TRIGGER events_no_update; DROP TRIGGER events_no_delete;');
  const rows = edit(db.prepare('SELECT * FROM events ORDER BY global_position').all() as Row[], db);
  let previous = '0'.repeat(64);
  db.transaction(() => {
    db.prepare('DELETE FROM events').run();
    const insert = db.prepare(
      'INSERT INTO events VALUES (@global_position, @event_id, @stream_id, @stream_version, @type, @schema_version, @data, @metadata, @recorded_at, @hash, @partition)',
    );
    for (const row of rows) {
      row.hash = rowHash(previous, row);
      previous = row.hash;
      insert.run(row);
    }
  })();
  db.close();
}
