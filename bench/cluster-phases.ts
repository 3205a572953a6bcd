/**
 * The phases of bench/cluster.ts that split a decision's cost in a cluster into its parts: `c` deciding, `d` the
 * deferred read models' passes (done once per decision in the cluster, by whichever node runs the pass), `a`
 * following a decision made elsewhere (the tail: wake-ups, catch-up reads, headers), and `s`, how long an append
 * holds the log's lock per decision.
 */
import type { ChildProcess } from 'node:child_process';
import { ask, type Locks, type Usage } from './cluster-node.js';
import { openLoop, type OpenLoopOptions } from './open-loop.js';

const usage = (child: ChildProcess) => ask<Usage>(child, 'usage');
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Parts {
  /** Node 1's CPU per decision it made with no deferred pass run anywhere (µs): deciding alone. */
  deciding: number;
  /** The other nodes' CPU per decision of node 1's, each (µs): `a`. */
  following: number[];
  /** The CPU of the deferred passes over those decisions, on the one node that ran them, per decision (µs): `d`. */
  deferred: number;
  /** PostgreSQL's backends' CPU per decision while deciding and following, and over the deferred passes (µs). */
  pgDeciding: number;
  pgDeferred: number;
  decided: number;
  /** Each node's idle CPU, % of a core, taken off its figures. */
  idle: number[];
  /** Node 1's appends while deciding below its capacity: how long they held the log's lock. */
  locks: Locks;
  /** Then node 1 at saturation, its passes still off: the others' CPU per decision of its (µs), over `ms`. */
  saturated: { following: number[]; decided: number; ms: number };
}

/**
 * Once the load before has drained: each node's idle CPU; then decisions to node 1 alone (`decide`, an open loop
 * below its capacity) with every node's deferred passes off: node 1's CPU is deciding, the others' following; then
 * node 1 alone at saturation (`saturate`), the others following it; then the passes on for one node alone (node 2,
 * or node 1 when alone), which applies both phases' decisions to the read models.
 */
export async function splitCosts(
  children: readonly ChildProcess[],
  decide: OpenLoopOptions,
  saturate: () => Promise<unknown>,
  backendCpu: () => Promise<number>,
  profile?: ChildProcess,
): Promise<Parts> {
  for (let last = -1, now = 0; last !== now; ) {
    last = now;
    await pause(1000);
    now = (await Promise.all(children.map(usage))).reduce((n, u) => n + u.answered, 0);
  }
  for (const c of children) await ask(c, 'deferred-off');
  const runner = children[children.length > 1 ? 1 : 0]!;
  // Whatever the load before left to the passes is applied first, by the runner, so the phase starts with none.
  await ask(runner, 'deferred-on');
  while ((await ask<number>(runner, 'deferred-lag')) > 0) await pause(100);
  await ask(runner, 'deferred-off');
  const idleFrom = await Promise.all(children.map(usage));
  const idleStart = performance.now();
  await pause(3000);
  const idleTo = await Promise.all(children.map(usage));
  const idlePerMs = idleTo.map((u, i) => (u.cpuMicros - idleFrom[i]!.cpuMicros) / (performance.now() - idleStart));
  if (profile) await ask(profile, 'profile');
  const start = await Promise.all(children.map(usage));
  const pgStart = await backendCpu();
  const locks = await timeLocks(children.slice(0, 1));
  const t0 = performance.now();
  await openLoop(decide);
  const held = await locks.read();
  // The tail's last catch-ups.
  await pause(500);
  const end = await Promise.all(children.map(usage));
  const pgEnd = await backendCpu();
  const elapsed = performance.now() - t0;
  if (profile) console.log(`  CPU profile of node 2 over the apply-only phase: ${await ask(profile, 'profiled')}`);
  const decided = Math.max(1, end[0]!.answered - start[0]!.answered);
  const busy = (i: number, from: Usage, to: Usage, ms: number, n = decided) => (to.cpuMicros - from.cpuMicros - idlePerMs[i]! * ms) / n;
  const split = (from: Usage, to: Usage) =>
    `system ${((to.systemMicros - from.systemMicros) / decided).toFixed(0)} µs, main thread ${((to.mainMicros - from.mainMicros) / decided).toFixed(0)} µs of ${((to.cpuMicros - from.cpuMicros) / decided).toFixed(0)} µs a decision, idle in it`;
  console.log(`  apply only, each node: ${end.map((u, i) => split(start[i]!, u)).join('; ')}`);
  // Following a saturated node: its commits are larger, and the tail's wake-ups fewer per decision.
  const t2 = performance.now();
  await saturate();
  await pause(500);
  const sat = await Promise.all(children.map(usage));
  const satMs = performance.now() - t2;
  const satDecided = Math.max(1, sat[0]!.answered - end[0]!.answered);
  const saturated = {
    following: sat.slice(1).map((u, i) => busy(i + 1, end[i + 1]!, u, satMs, satDecided)),
    decided: satDecided,
    ms: satMs,
  };
  // The deferred passes, on the runner alone, over what both phases decided.
  const runnerIndex = children.indexOf(runner);
  const before = await usage(runner);
  const pgBefore = await backendCpu();
  const t1 = performance.now();
  await ask(runner, 'deferred-on');
  while ((await ask<number>(runner, 'deferred-lag')) > 0) await pause(50);
  const after = await usage(runner);
  const pgAfter = await backendCpu();
  const deferredMs = performance.now() - t1;
  for (const c of children) await ask(c, 'deferred-on');
  return {
    deciding: busy(0, start[0]!, end[0]!, elapsed),
    following: end.slice(1).map((u, i) => busy(i + 1, start[i + 1]!, u, elapsed)),
    deferred: busy(runnerIndex, before, after, deferredMs, decided + satDecided),
    pgDeciding: ((pgEnd - pgStart) * 1e6) / decided,
    pgDeferred: ((pgAfter - pgBefore) * 1e6) / (decided + satDecided),
    decided,
    idle: idlePerMs.map((c) => c / 10),
    locks: held,
    saturated,
  };
}

/** Starts timing every node's appends (the lock held per transaction); `read` sums them over the nodes. */
export async function timeLocks(children: readonly ChildProcess[]): Promise<{ read(): Promise<Locks> }> {
  for (const c of children) await ask(c, 'locks-start');
  return {
    read: async () => {
      const all = await Promise.all(children.map((c) => ask<Locks>(c, 'locks')));
      return all.reduce((s, l) => ({ heldMs: s.heldMs + l.heldMs, commits: s.commits + l.commits, appends: s.appends + l.appends }));
    },
  };
}
