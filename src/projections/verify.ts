import type { Kysely } from 'kysely';
import { openDatabase, migrateStore, type ChainReport, type EventStore } from '../store/index.js';
import type { ProjectionRegistry } from './registry.js';

export interface RowDiff {
  table: string;
  key: Record<string, unknown>;
  problem: 'missing in live' | 'missing in replay' | 'field differs';
  field?: string;
  live?: unknown;
  replayed?: unknown;
}

export interface VerifyReport {
  chain: ChainReport;
  tables: { name: string; rows: number }[];
  diffs: RowDiff[];
  ok: boolean;
}

/**
 * The audit check: rebuild every read model from the log into a scratch database and compare it, row by row
 * and field by field, with the live read models; and recompute the hash chain. The deferred read models are
 * replayed up to where the live ones stand (they trail the head by a pass), so the check writes nothing live.
 */
export async function verifyReplay(liveDb: Kysely<any>, store: EventStore, registry: ProjectionRegistry): Promise<VerifyReport> {
  const chain = await store.verifyChain();
  const deferredThrough = await registry.deferredPosition(liveDb);
  const scratch = openDatabase(':memory:');
  try {
    await migrateStore(scratch.db);
    await registry.migrate(scratch.db);
    let batch = [];
    for await (const event of store.iterateAll()) {
      batch.push(event);
      if (batch.length >= 2000) {
        const page = batch;
        await scratch.db.transaction().execute((trx) => registry.applyAll(trx, page, deferredThrough));
        batch = [];
      }
    }
    if (batch.length > 0) {
      const page = batch;
      await scratch.db.transaction().execute((trx) => registry.applyAll(trx, page, deferredThrough));
    }
    const { tables, diffs } = await compareReadModels(liveDb, scratch.db, registry);
    return { chain, tables, diffs, ok: chain.ok && diffs.length === 0 };
  } finally {
    await scratch.db.destroy();
  }
}

/**
 * Every read model of `live` against the same tables in `replayed`, row by row and field by field (the two may be
 * on different backends: a replay into SQLite checks PostgreSQL's read models, and a copy's target its source's).
 */
export async function compareReadModels(
  live: Kysely<any>,
  replayed: Kysely<any>,
  registry: ProjectionRegistry,
): Promise<Pick<VerifyReport, 'tables' | 'diffs'>> {
  const diffs: RowDiff[] = [];
  const tables: VerifyReport['tables'] = [];
  for (const projection of registry.all) {
    for (const table of projection.tables) {
      const [a, b] = await Promise.all([rowsByKey(live, table), rowsByKey(replayed, table)]);
      tables.push({ name: table.name, rows: a.size });
      diffs.push(...compareTables(table, a, b));
    }
  }
  return { tables, diffs };
}

type Row = Record<string, unknown>;

async function rowsByKey(db: Kysely<any>, table: { name: string; key: readonly string[] }): Promise<Map<string, Row>> {
  const rows: Row[] = await db.selectFrom(table.name).selectAll().execute();
  return new Map(rows.map((r) => [JSON.stringify(table.key.map((k) => r[k])), r]));
}

function compareTables(
  { name: table, key }: { name: string; key: readonly string[] },
  live: Map<string, Row>,
  replayed: Map<string, Row>,
): RowDiff[] {
  const diffs: RowDiff[] = [];
  const keyOf = (row: Row) => Object.fromEntries(key.map((c) => [c, row[c]]));
  for (const [k, liveRow] of live) {
    const replayRow = replayed.get(k);
    if (!replayRow) {
      diffs.push({ table, key: keyOf(liveRow), problem: 'missing in replay' });
      continue;
    }
    for (const field of new Set([...Object.keys(liveRow), ...Object.keys(replayRow)])) {
      if (!Object.is(liveRow[field], replayRow[field])) {
        diffs.push({ table, key: keyOf(liveRow), problem: 'field differs', field, live: liveRow[field], replayed: replayRow[field] });
      }
    }
  }
  for (const [k, replayRow] of replayed) {
    if (!live.has(k)) diffs.push({ table, key: keyOf(replayRow), problem: 'missing in live' });
  }
  return diffs;
}

export function formatVerifyReport(report: VerifyReport): string {
  const lines: string[] = [];
  lines.push(`hash chain: ${report.chain.ok ? 'intact' : 'BROKEN'} (${report.chain.checked} events checked)`);
  for (const p of report.chain.problems) lines.push(`  position ${p.position}: ${p.message}`);
  for (const t of report.tables) lines.push(`table ${t.name}: ${t.rows} rows`);
  for (const d of report.diffs) {
    const where = `${d.table} ${JSON.stringify(d.key)}`;
    lines.push(
      d.problem === 'field differs'
        ? `DIFF ${where} field ${d.field}: live ${JSON.stringify(d.live)} != replayed ${JSON.stringify(d.replayed)}`
        : `DIFF ${where}: ${d.problem}`,
    );
  }
  lines.push(report.ok ? 'OK: read models equal the replayed log' : `FAILED: ${report.diffs.length} differences`);
  return lines.join('\n');
}
