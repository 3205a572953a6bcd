import { readFileSync } from 'node:fs';
import type { Engine } from '../src/engine.js';
import { decisionTotals, type DecisionTotals } from './stats.js';
import { threadCpu } from './thread-cpu.js';

/** A mark the child takes at each end of a phase: the profiles' clock, every thread's CPU, the decisions so far. */
export interface Mark {
  atMicros: number;
  names: [number, string][];
  threads: [number, { user: number; system: number }][];
  decided: DecisionTotals;
  /** The log's commits and the events they wrote. */
  commits: number;
  events: number;
}

const threadNames = (): [number, string][] =>
  [...(threadCpu() ?? new Map()).keys()].map((tid) => {
    try {
      return [tid, readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim()];
    } catch {
      return [tid, '?'];
    }
  });

export const mark = async (engine: Engine): Promise<Mark> => ({
  atMicros: Number(process.hrtime.bigint() / 1000n),
  names: threadNames(),
  threads: [...(threadCpu() ?? new Map())],
  decided: await decisionTotals(engine.metrics.decisions),
  commits: (await engine.metrics.eventCommits.get()).values[0]?.value ?? 0,
  events: (await engine.metrics.eventsAppended.get()).values[0]?.value ?? 0,
});
