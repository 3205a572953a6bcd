/**
 * A list change on one node against a burst on another: two engine nodes on one PostgreSQL database (in-process,
 * the tail woken by NOTIFY), a user blacklisted through node A, and the moment A acknowledges it, BURST decisions of
 * that user sent to node B at once. Prints how many went through unrefused (not hitting the blacklist rule), per
 * round and in all: every one of them was decided after the change was acknowledged, so the answer must be 0.
 * Usage: npm run bench:list-fence [-- ROUNDS] [BURST]   (PG_BENCH_URL: a server URL, default the local one)
 */
import { randomBytes } from 'node:crypto';
import { loadavg, tmpdir } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import { createEngine, type Engine } from '../src/engine.js';
import { SWITCH_POPULATION, transactionSource } from './fixtures/transactions.js';

const rounds = Number(process.argv[2] ?? 5);
const burst = Number(process.argv[3] ?? 80);
const adminUrl = process.env.PG_BENCH_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const database = `ce_bench_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
await admin.query(`create database ${database} template template0 encoding 'UTF8'`);
const url = new URL(adminUrl);
url.pathname = `/${database}`;
const dirs: string[] = [];
const node = async (nodeId: string): Promise<Engine> => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ce-fence-'));
  dirs.push(dataDir);
  return createEngine({
    dataDir,
    databaseUrl: url.toString(),
    nodeId,
    logger: pino({ level: 'silent' }),
    tailIntervalMs: 200,
    workerIntervalMs: 0,
  });
};

const next = transactionSource(SWITCH_POPULATION, 7, 'FENCE', 0);
const request = (user: string) => {
  const body = next() as { anonymizedUserData: { uniqueId: string } };
  body.anonymizedUserData.uniqueId = user;
  return body;
};

console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}; ${rounds} rounds of ${burst} decisions at once on node B`,
);
const a = await node('fence-a');
const b = await node('fence-b');
let through = 0;
try {
  for (let round = 1; round <= rounds; round++) {
    const user = `fenced-${round}`;
    await a.monitoring.addToBlacklist({ businessId: 'bench' }, 'users', user);
    const decisions = await Promise.all(Array.from({ length: burst }, () => b.decide(request(user), { businessId: 'bench' })));
    const missed = decisions.filter((d) => !d.ruleResult?.some((r) => r.id === 'BL_USER')).length;
    through += missed;
    console.log(`round ${round}: ${missed} of ${burst} went through unrefused`);
  }
  console.log(`in all: ${through} of ${rounds * burst} went through unrefused`);
} finally {
  await Promise.allSettled([a.close(), b.close()]);
  await admin.query(`drop database if exists ${database} with (force)`);
  await admin.end();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
