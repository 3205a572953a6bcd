/**
 * Bytes on disk per instant decision (issue #46: ≤ 1.5 KB, log and read models together), on SQLite: the switch's
 * workload (bench/fixtures/transactions.ts, about 3% not approved) decided in-process, then every table and index of
 * the log's file measured page by page with SQLite's dbstat, divided by the number of decisions. The WAL is
 * checkpointed at close, so the file holds everything. Also prints the mean stored size of a TransactionDecided's
 * data, approved and not.
 * Usage: npm run bench:disk [-- DECISIONS]   (10,000 by default)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { pino } from 'pino';
import { createEngine } from '../src/engine.js';
import { decodeDecided } from '../src/monitoring/compact-decision.js';
import { LOG_FILE } from '../src/store/database.js';
import { SWITCH_POPULATION, transactionSource } from './fixtures/transactions.js';

const DECISIONS = Number(process.argv[2] ?? 10_000);
/** Tables and indexes under this many bytes per decision are summed into one line. */
const SMALL = 1;

const dir = mkdtempSync(join(tmpdir(), 'bench-disk-'));
const engine = await createEngine({ dataDir: dir, logger: pino({ level: 'silent' }), watchRules: false });
const next = transactionSource(SWITCH_POPULATION, 11, 'DISK');
let sent = 0;
await Promise.all(
  Array.from({ length: 64 }, async () => {
    while (sent++ < DECISIONS) await engine.decide(next());
  }),
);
await engine.store.settleDeferred();
await engine.close();

const db = new Database(join(dir, LOG_FILE), { readonly: true });
const rows = db
  .prepare(
    `select d.name, m.type, m.tbl_name, sum(d.pgsize) as bytes, sum(d.payload) as payload
       from dbstat d left join sqlite_schema m on m.name = d.name group by d.name order by bytes desc`,
  )
  .all() as { name: string; type: string | null; tbl_name: string | null; bytes: number; payload: number }[];
// The not-approved decisions are those with a case; the data is decoded as every reader decodes it.
const decided = db.prepare(`select data, metadata from events where type = 'TransactionDecided'`).all() as {
  data: string;
  metadata: string;
}[];
const sizes = { approved: [] as number[], flagged: [] as number[], metadata: 0 };
for (const { data, metadata } of decided) {
  const { caseId } = decodeDecided(JSON.parse(data));
  (caseId === null ? sizes.approved : sizes.flagged).push(data.length);
  sizes.metadata += metadata.length;
}
db.close();
rmSync(dir, { recursive: true, force: true });

const per = (bytes: number) => bytes / DECISIONS;
const total = rows.reduce((sum, r) => sum + r.bytes, 0);
const logNames = new Set(rows.filter((r) => r.tbl_name === 'events').map((r) => r.name));
const log = rows.filter((r) => logNames.has(r.name)).reduce((sum, r) => sum + r.bytes, 0);
console.log(`${DECISIONS.toLocaleString('en-US')} decisions, SQLite, bytes per decision (dbstat: pages, payload)`);
let small = 0;
for (const r of rows) {
  if (per(r.bytes) < SMALL) {
    small += r.bytes;
    continue;
  }
  const what = r.type === 'index' || r.name.startsWith('sqlite_autoindex') ? `index of ${r.tbl_name}` : (r.type ?? '');
  console.log(`  ${r.name.padEnd(50)} ${what.padEnd(40)} ${per(r.bytes).toFixed(0).padStart(6)} ${per(r.payload).toFixed(0).padStart(6)}`);
}
console.log(`  ${'(the rest)'.padEnd(50)} ${''.padEnd(40)} ${per(small).toFixed(0).padStart(6)}`);
console.log(`the log (events and its indexes) ${per(log).toFixed(0)} bytes, read models and the rest ${per(total - log).toFixed(0)}`);
console.log(`all together ${per(total).toFixed(0)} bytes per decision (aim ≤ 1,536)`);
const mean = (sizes: readonly number[]) => (sizes.length === 0 ? '–' : (sizes.reduce((a, b) => a + b, 0) / sizes.length).toFixed(0));
console.log(
  `TransactionDecided: ${decided.length.toLocaleString('en-US')} events, data ${mean([...sizes.approved, ...sizes.flagged])} bytes on average (approved ${mean(sizes.approved)}, not approved ${mean(sizes.flagged)}), metadata ${(sizes.metadata / decided.length).toFixed(0)}`,
);
