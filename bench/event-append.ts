/**
 * Append throughput and latency with the durability settings the product ships (WAL, synchronous=FULL):
 * one writer awaiting each append, then many concurrent writers sharing group commits. The baseline is
 * a bare better-sqlite3 insert committed with the same pragmas, one transaction (one fsync) per row.
 * Usage: npm run bench:append [-- ROUNDS]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { systemClock } from '../src/clock.js';
import { EventStore, migrateStore, openDatabase } from '../src/store/index.js';
import { median, printSummary, summarise, type Summary } from './stats.js';

const rounds = Number(process.argv[2] ?? 3);
const meta = { businessId: 'bench', actor: 'bench' };
const payload = { amount: '125000.50', currency: 'NGN', reference: 'x'.repeat(24), narration: 'transfer to savings' };

async function withStore<T>(work: (store: EventStore) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-append-'));
  const { db } = openDatabase(join(dir, 'events.db'));
  await migrateStore(db);
  const store = new EventStore(db, systemClock);
  await store.init();
  try {
    return await work(store);
  } finally {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

function baselineRawInsert(n: number): Summary {
  const dir = mkdtempSync(join(tmpdir(), 'bench-raw-'));
  const db = new Database(join(dir, 'raw.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, data TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO t (data) VALUES (?)');
  const latencies: number[] = [];
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    insert.run(JSON.stringify(payload));
    latencies.push(performance.now() - t0);
  }
  const s = summarise('baseline: raw insert, 1 fsync per row', latencies, (performance.now() - started) / 1000);
  db.close();
  rmSync(dir, { recursive: true, force: true });
  return s;
}

async function singleWriter(n: number): Promise<Summary> {
  return withStore(async (store) => {
    const latencies: number[] = [];
    const started = performance.now();
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      await store.append(`s-${i}`, [{ type: 'TransactionDecided', data: payload }], { expectedVersion: 'no_stream', metadata: meta });
      latencies.push(performance.now() - t0);
    }
    return summarise('event store: 1 writer', latencies, (performance.now() - started) / 1000);
  });
}

async function concurrentWriters(n: number, writers: number): Promise<Summary> {
  return withStore(async (store) => {
    const latencies: number[] = [];
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: writers }, async () => {
        while (next < n) {
          const i = next++;
          const t0 = performance.now();
          await store.append(`s-${i}`, [{ type: 'TransactionDecided', data: payload }], { expectedVersion: 'no_stream', metadata: meta });
          latencies.push(performance.now() - t0);
        }
      }),
    );
    return summarise(`event store: ${writers} concurrent writers`, latencies, (performance.now() - started) / 1000);
  });
}

const results = new Map<string, Summary[]>();
const record = (s: Summary) => {
  printSummary(s);
  results.set(s.name, [...(results.get(s.name) ?? []), s]);
};
for (let round = 1; round <= rounds; round++) {
  console.log(`round ${round}/${rounds}`);
  record(baselineRawInsert(2000));
  record(await singleWriter(2000));
  record(await concurrentWriters(20000, 16));
  record(await concurrentWriters(20000, 256));
}
console.log(`\nmedians over ${rounds} rounds`);
for (const [name, runs] of results) {
  printSummary({
    ...runs[0]!,
    name,
    perSecond: median(runs.map((r) => r.perSecond)),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
  });
}
