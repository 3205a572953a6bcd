// Replays stored decisions through a candidate ruleset, rebuilding velocity and history in decision order
// exactly as the live engine would have, and reports which decisions change and how rule hits move.
import type { CompiledRuleset } from './compiler.js';
import { recordOf } from '../own-keys.js';
import { RulesRuntime, type Providers } from './runtime.js';

export interface StoredDecision {
  readonly request: unknown;
  /** ISO timestamp of the live decision; also the time the request entered velocity and history. */
  readonly decidedAt: string;
  readonly rulesetVersion: string;
  readonly action: string;
  readonly fired: readonly string[];
}

export interface BacktestSample {
  readonly reference: string | undefined;
  readonly decidedAt: string;
  readonly currentFired: readonly string[];
  readonly candidateFired: readonly string[];
  readonly candidateRiskScore: string;
}

export interface BacktestReport {
  readonly candidateVersion: string;
  readonly from: string | undefined;
  readonly to: string | undefined;
  readonly decisions: number;
  readonly changed: number;
  /** `approved→review` → count, only for changed decisions. Records here have no prototype (src/records.ts). */
  readonly transitions: Readonly<Record<string, number>>;
  readonly ruleHits: Readonly<Record<string, { readonly current: number; readonly candidate: number }>>;
  readonly samples: Readonly<Record<string, readonly BacktestSample[]>>;
}

export interface BacktestOptions extends Providers {
  /** Only decisions at or after `from` / before `to` are compared; earlier ones still warm up the state. */
  readonly from?: string;
  readonly to?: string;
  readonly samplesPerTransition?: number;
}

/**
 * A backtest run on the server's own thread (the engine runs them in threads of their own, but an in-memory log
 * cannot be read from another thread) lets the event loop turn every SLICE_MS or DECISIONS_PER_TURN decisions,
 * whichever comes first: decisions and health checks go on meanwhile (20,000 decisions held it for 3-4 s).
 */
const SLICE_MS = 8;
const DECISIONS_PER_TURN = 200;

/** Decisions must come in decidedAt order, as the event log stores them. */
export async function backtest(
  decisions: Iterable<StoredDecision> | AsyncIterable<StoredDecision>,
  candidate: CompiledRuleset,
  options: BacktestOptions = {},
): Promise<BacktestReport> {
  const runtime = new RulesRuntime(candidate, options);
  const from = options.from === undefined ? -Infinity : Date.parse(options.from);
  const to = options.to === undefined ? Infinity : Date.parse(options.to);
  const limit = options.samplesPerTransition ?? 5;
  // Keyed by rule ids and action names, which come from uploaded rules and stored events: Maps, never objects.
  const transitions = new Map<string, number>();
  const ruleHits = new Map<string, { current: number; candidate: number }>();
  const samples = new Map<string, BacktestSample[]>();
  const hit = (id: string, side: 'current' | 'candidate'): void => {
    let hits = ruleHits.get(id);
    if (!hits) ruleHits.set(id, (hits = { current: 0, candidate: 0 }));
    hits[side]++;
  };
  let count = 0;
  let changed = 0;
  let replayed = 0;
  let slice = performance.now();
  for await (const d of decisions) {
    if (++replayed % DECISIONS_PER_TURN === 0 || performance.now() - slice > SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      slice = performance.now();
    }
    const at = Date.parse(d.decidedAt);
    if (at >= to) break;
    if (at < from) {
      runtime.record(d.request, at);
      continue;
    }
    const result = runtime.decide(d.request, at);
    count++;
    for (const id of d.fired) hit(id, 'current');
    for (const f of result.fired) hit(f.id, 'candidate');
    if (result.action.result === d.action) continue;
    changed++;
    const key = `${d.action}→${result.action.result}`;
    transitions.set(key, (transitions.get(key) ?? 0) + 1);
    let list = samples.get(key);
    if (!list) samples.set(key, (list = []));
    if (list.length < limit) {
      list.push({
        reference: (d.request as { transactionData?: { reference?: string } }).transactionData?.reference,
        decidedAt: d.decidedAt,
        currentFired: d.fired,
        candidateFired: result.fired.map((f) => f.id),
        candidateRiskScore: result.riskScore,
      });
    }
  }
  return {
    candidateVersion: candidate.version,
    from: options.from,
    to: options.to,
    decisions: count,
    changed,
    transitions: recordOf(transitions),
    ruleHits: recordOf(ruleHits),
    samples: recordOf(samples),
  };
}

export function formatBacktest(report: BacktestReport): string {
  const pct = report.decisions === 0 ? '0' : ((100 * report.changed) / report.decisions).toFixed(2);
  const lines = [
    `Candidate ruleset ${report.candidateVersion}, window ${report.from ?? 'start'} .. ${report.to ?? 'end'}`,
    `${report.decisions} decisions replayed, ${report.changed} changed (${pct}%)`,
  ];
  const transitions = Object.entries(report.transitions).sort((a, b) => b[1] - a[1]);
  if (transitions.length > 0) lines.push('', 'Changed decisions:', ...transitions.map(([t, n]) => `  ${t.padEnd(22)} ${n}`));
  const rules = Object.entries(report.ruleHits).sort((a, b) => a[0].localeCompare(b[0]));
  if (rules.length > 0) {
    lines.push('', `${'Rule'.padEnd(28)} ${'current'.padStart(8)} ${'candidate'.padStart(10)} ${'delta'.padStart(7)}`);
    for (const [id, h] of rules) {
      const delta = h.candidate - h.current;
      lines.push(
        `${id.padEnd(28)} ${String(h.current).padStart(8)} ${String(h.candidate).padStart(10)} ${(delta > 0 ? `+${delta}` : String(delta)).padStart(7)}`,
      );
    }
  }
  for (const [t, list] of Object.entries(report.samples)) {
    lines.push('', `Samples ${t}:`);
    for (const s of list) {
      lines.push(
        `  ${s.reference ?? '(no reference)'} at ${s.decidedAt}: [${s.currentFired.join(', ')}] → [${s.candidateFired.join(', ')}] riskScore ${s.candidateRiskScore}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}
