/** Where bench/cluster.ts's processes run and what CPU the database spent: taskset and /proc. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type pg from 'pg';

/** Pins a process, all its threads, to `cores` (a taskset list); false when taskset is missing or refused. */
export function pin(pid: number, cores: string): boolean {
  try {
    execFileSync('taskset', ['-a', '-cp', cores, String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export const backendPids = async (admin: pg.Client, database: string) =>
  (await admin.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1', [database])).rows.map((r) => r.pid);

/** CPU seconds the server processes of `database` have used (Linux /proc; clock ticks of 10 ms). */
export async function backendCpu(admin: pg.Client, database: string): Promise<number> {
  let ticks = 0;
  for (const pid of await backendPids(admin, database)) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // A backend that ended between the query and the read.
    }
  }
  return ticks / 100;
}
