/**
 * An engine node caught in the middle of a background job: it starts on the database given, takes the job's claim
 * as a worker does when it begins, prints `held` once the server shows the lock granted, and never finishes, so a
 * test can SIGKILL it there. With `--tree-heads` for the claim, it is a node publishing tree heads every second
 * instead, and prints `held` once it has taken the publisher's claim.
 * Usage: node --import tsx test/cluster/claim-holder.ts <database url> <data dir> <claim key | --tree-heads>
 */
import { sql } from 'kysely';
import { pino } from 'pino';
import { createEngine } from '../../src/engine.js';

const [databaseUrl, dataDir, key] = process.argv.slice(2) as [string, string, string];
const publisher = key === '--tree-heads';
const engine = await createEngine({
  dataDir,
  databaseUrl,
  nodeId: 'dying',
  logger: pino({ level: 'silent' }),
  // A publisher hears of the other nodes' decisions, so that its heads grow with the log.
  tailIntervalMs: publisher ? 200 : 0,
  workerIntervalMs: 0,
  ...(publisher ? { auditCheckpointIntervalSeconds: 1 } : {}),
});
if (!publisher) void engine.store.exclusive(key, () => new Promise<never>(() => undefined));
for (;;) {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_locks l join pg_stat_activity a using (pid)
    where l.locktype = 'advisory' and l.granted and a.application_name = 'compliance-engine dying claims'`.execute(engine.db);
  if (rows[0]!.n > 0) break;
  await new Promise((r) => setTimeout(r, 10));
}
process.stdout.write('held\n');
