/**
 * CPU time of each thread of this process, from /proc (Linux only; elsewhere `threadCpu` returns undefined and
 * the benches print nothing). process.cpuUsage() sums all threads; this tells which one a decision's CPU is
 * spent in: the main thread (deciding, HTTP), the store's writer thread, or V8's garbage-collection helpers.
 * Threads are told apart by id and by how busy they are: Node names them all "node".
 */
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/** Thread id → user and system CPU in microseconds. */
export type ThreadTimes = Map<number, { user: number; system: number }>;

/** USER_HZ, the unit of /proc's CPU times: fixed at 100 in the kernel's user-space ABI whatever the kernel's own tick. */
const TICKS_PER_SECOND = 100;
const MICROS_PER_TICK = 1e6 / TICKS_PER_SECOND;

export function threadCpu(): ThreadTimes | undefined {
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return undefined;
  }
  const times: ThreadTimes = new Map();
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      // Fields after the command name, which is in parentheses and may itself hold spaces.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      times.set(Number(tid), { user: Number(fields[11]) * MICROS_PER_TICK, system: Number(fields[12]) * MICROS_PER_TICK });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return times;
}

/** Each thread's CPU (all of it, and the system's part) per operation between two readings, in microseconds. */
function perOperation(before: ThreadTimes, after: ThreadTimes, operations: number): { tid: number; total: number; system: number }[] {
  return [...after].map(([tid, end]) => {
    const start = before.get(tid) ?? { user: 0, system: 0 };
    const system = (end.system - start.system) / operations;
    return { tid, total: (end.user - start.user) / operations + system, system };
  });
}

/**
 * CPU per operation of each thread between two readings of one process (whose main thread's id is its pid), as one
 * line: the main thread, then the others busiest first. Threads under 1 µs per operation are left out.
 */
export function describeThreadCpu(
  before: ThreadTimes | undefined,
  after: ThreadTimes | undefined,
  operations: number,
  mainThread = process.pid,
): string {
  if (!before || !after || operations <= 0) return '';
  const rows = perOperation(before, after, operations).filter((r) => r.total >= 1);
  const main = rows.find((r) => r.tid === mainThread);
  const others = rows.filter((r) => r !== main).sort((a, b) => b.total - a.total);
  const cell = (r: { total: number; system: number }) => `${r.total.toFixed(0)} µs${r.system >= 5 ? ` (sys ${r.system.toFixed(0)})` : ''}`;
  const total = rows.reduce((sum, r) => sum + r.total, 0);
  return `CPU per operation ${total.toFixed(0)} µs: main thread ${main ? cell(main) : '0 µs'}; other threads ${others.map(cell).join(', ') || 'none'}`;
}

/**
 * The most operations a second that the CPU spent per operation between two readings allows: every core busy, or
 * the main thread's one core busy, whichever is less. At saturation, a budget above it cannot be met without
 * spending less CPU per operation, whatever else changes.
 */
export function cpuCeiling(
  before: ThreadTimes | undefined,
  after: ThreadTimes | undefined,
  operations: number,
  mainThread = process.pid,
): string {
  if (!before || !after || operations <= 0) return '';
  const rows = perOperation(before, after, operations);
  const total = rows.reduce((sum, r) => sum + r.total, 0);
  const main = rows.find((r) => r.tid === mainThread)?.total ?? 0;
  const cores = availableParallelism();
  const limit = Math.min((cores * 1e6) / total, main > 0 ? 1e6 / main : Infinity);
  return `at this CPU per operation, ${cores} cores allow at most ${Math.round(limit).toLocaleString('en-US')}/s (all cores ${Math.round((cores * 1e6) / total).toLocaleString('en-US')}/s, the main thread alone ${main > 0 ? Math.round(1e6 / main).toLocaleString('en-US') : '∞'}/s)`;
}
