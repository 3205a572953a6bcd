/** The model bench/cluster.ts prints from its runs: N nodes on N machines, and what bounds them. */
import type { Parts } from './cluster-phases.js';

export const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;

export interface SizeResult {
  nodes: number;
  served: number;
  p50: number;
  p99: number;
  saturation: number;
  /** Engine CPU per decision, µs, the median over the nodes. */
  engineCpu: number;
  /** PostgreSQL backends' CPU per decision, µs. */
  pgCpu: number;
  /** Engine CPU per decision at saturation (median over the nodes) and PostgreSQL's, µs. */
  satCpu: number;
  satPgCpu: number;
  /** The log's lock held per decision at saturation, µs: the serial part `s`. */
  lockUs: number;
  /** Apply-only phase: the other nodes' CPU per decision node 1 made, µs (median): `a`. */
  applyCpu?: number;
  /** The same with node 1 at saturation, µs (median). */
  applySat?: number;
  parts: Parts;
  lagP50?: number;
  lagP99?: number;
}

/**
 * c: one node's CPU per decision at saturation, its own deferred passes in it (d); in a balanced cluster each node
 * runs the passes for 1/N of the decisions, so N nodes still spend c per decision made, plus a for each decision
 * they follow: N / (c + (N−1)·a) of engine cores. Against it the database's CPU per decision and the lock's 1/s.
 */
export function printModel(results: readonly SizeResult[]): void {
  const base = results[0]!;
  const applied = results.flatMap((r) => (r.applyCpu === undefined ? [] : [r.applyCpu]));
  const appliedSat = results.flatMap((r) => (r.applySat === undefined ? [] : [r.applySat]));
  if (base.nodes !== 1 || applied.length === 0) return;
  const c = base.satCpu;
  const one = 1e6 / c;
  console.log(
    `\nmodel, N nodes on N machines of one such core each: c = ${c.toFixed(0)} µs to decide (d = ${base.parts.deferred.toFixed(0)} µs of it the deferred passes, shared), a = ${median(applied).toFixed(0)} µs to follow another node's decision at half the offered rate, ${median(appliedSat).toFixed(0)} µs following a saturated node`,
  );
  for (const [what, a] of [
    ['half the rate', median(applied)],
    ['saturated', median(appliedSat)],
  ] as const)
    console.log(
      `  a of ${what}: ${[1, 2, 3, 10]
        .map((n) => {
          const d = (n * 1e6) / (c + (n - 1) * a);
          return `${n} node${n > 1 ? 's' : ''} ${d.toFixed(0)}/s (×${(d / one).toFixed(2)})`;
        })
        .join(', ')}`,
    );
  console.log(
    `  PostgreSQL: ${base.satPgCpu.toFixed(0)} µs of backend CPU per decision at saturation, ${(1e6 / base.satPgCpu).toFixed(0)}/s a database core; the log's lock held ${base.lockUs.toFixed(0)} µs per decision (s), at most ${(1e6 / base.lockUs).toFixed(0)}/s`,
  );
}
