// Replays stored decisions through a candidate ruleset and reports which decisions change and how rule hits move.
// Each decision is evaluated against the world as it was at its position in the log: every feature its live rules
// read is answered with the value the decision recorded (replay-context.ts), and any other one from the velocity,
// history and lists the backtest rebuilt from the log up to that position. A decision that needs a feature neither
// can answer is listed as unreproducible, with the reason, rather than scored against something else.
import type { CompiledRuleset, Evaluation } from './compiler.js';
import { recordOf } from '../own-keys.js';
import type { FeatureContext } from './context.js';
import { NotYetLoaded, ReplayContext, Unreproducible, type ObservedFeatures } from './replay-context.js';
import { RulesRuntime, type Providers } from './runtime.js';

export interface StoredDecision {
  readonly request: unknown;
  /** ISO timestamp of the live decision; also the time the request entered velocity and history. */
  readonly decidedAt: string;
  readonly rulesetVersion: string;
  readonly action: string;
  readonly fired: readonly string[];
  /** The decision's position in the log: the state it is evaluated against. */
  readonly position?: number;
  /** The features the live rules read, with their values; absent: every feature comes from the replayed state. */
  readonly observed?: ObservedFeatures;
}

export interface BacktestSample {
  readonly reference: string | undefined;
  readonly decidedAt: string;
  /** Log position the decision was evaluated at (decisions from the log). */
  readonly position?: number;
  readonly currentFired: readonly string[];
  readonly candidateFired: readonly string[];
  readonly candidateRiskScore: string;
  /** Reads the decision had not recorded, answered from the state replayed to its position (decisions from the log). */
  readonly reconstructed?: readonly string[];
}

/** A decision the backtest could not evaluate as it was, and why. */
export interface UnreproducibleDecision {
  readonly reference: string | undefined;
  readonly decidedAt: string;
  readonly position?: number;
  readonly reason: string;
}

export interface BacktestReport {
  readonly candidateVersion: string;
  readonly from: string | undefined;
  readonly to: string | undefined;
  /** Decisions evaluated and compared (the unreproducible ones are not among them). */
  readonly decisions: number;
  readonly changed: number;
  /** `approved→review` → count, only for changed decisions. Records here have no prototype (src/records.ts). */
  readonly transitions: Readonly<Record<string, number>>;
  readonly ruleHits: Readonly<Record<string, { readonly current: number; readonly candidate: number }>>;
  readonly samples: Readonly<Record<string, readonly BacktestSample[]>>;
  /**
   * What each decision was evaluated against: `log position` (its recorded features, then the log replayed up to
   * its position) for decisions read from the log, `replayed state` when they carried no record of their features.
   */
  readonly evaluatedAgainst: 'log position' | 'replayed state';
  /** Log positions of the first and last decision compared (null when none was, or none came from the log). */
  readonly positions: { readonly first: number | null; readonly last: number | null };
  /** Decisions compared that read a feature their record lacked (the candidate's own), from the replayed state. */
  readonly reconstructed: number;
  readonly unreproducibleCount: number;
  /** The first UNREPRODUCIBLE_LISTED of them, in log order. */
  readonly unreproducible: readonly UnreproducibleDecision[];
}

/** The result a decision's evaluation gives once the engine's own rules apply (monitoring's blacklist stop). */
export interface Outcome {
  readonly action: string;
  readonly fired: readonly string[];
  readonly riskScore: string;
}

export interface BacktestOptions<D extends StoredDecision = StoredDecision> extends Providers {
  /** Only decisions at or after `from` / before `to` are compared; earlier ones still warm up the state. */
  readonly from?: string;
  readonly to?: string;
  readonly samplesPerTransition?: number;
  /** The engine's rules over the candidate's evaluation, as the live engine applied them (default: none). */
  readonly finish?: (decision: D, evaluation: Evaluation) => Outcome;
  /** History unseen this long is forgotten, as the live engine forgets it (default: never). */
  readonly historyHorizonMs?: number;
}

/**
 * A backtest run on the server's own thread (the engine runs them in threads of their own, but an in-memory log
 * cannot be read from another thread) lets the event loop turn every SLICE_MS or DECISIONS_PER_TURN decisions,
 * whichever comes first: decisions and health checks go on meanwhile (20,000 decisions held it for 3-4 s).
 */
const SLICE_MS = 8;
const DECISIONS_PER_TURN = 200;
/** Unreproducible decisions listed in the report; more are counted only, so that the report stays bounded. */
export const UNREPRODUCIBLE_LISTED = 1000;
/** How often, in decision time, expired velocity entries and forgotten history are dropped, as the live engine does. */
const EVICT_EVERY_MS = 60_000;

const referenceOf = (request: unknown): string | undefined =>
  (request as { transactionData?: { reference?: string } }).transactionData?.reference;

const plainOutcome = (_: StoredDecision, e: Evaluation): Outcome => ({
  action: e.action.result,
  fired: e.fired.map((f) => f.id),
  riskScore: e.riskScore,
});

/** Evaluates a decision, again once a feature source it needed has loaded (nothing is recorded until it succeeds). */
async function decideOnce<D extends StoredDecision>(
  runtime: RulesRuntime,
  d: D,
  at: number,
  finish: (d: D, e: Evaluation) => Outcome,
  observe: (ctx: FeatureContext) => FeatureContext,
): Promise<Outcome> {
  for (;;) {
    try {
      return finish(d, runtime.decide(d.request, at, observe));
    } catch (error) {
      if (!(error instanceof NotYetLoaded)) throw error;
      await error.loaded;
    }
  }
}

/** A stored decision through the candidate: its outcome, and the reads its record lacked, or why it cannot be. */
export type Replayed = { readonly outcome: Outcome; readonly reconstructed: readonly string[] } | { readonly unreproducible: string };

/**
 * A candidate ruleset fed decisions in log order, each evaluated against its record and the state the decisions
 * before it built: what a backtest does with each decision, and a shadow with each live one (src/monitoring/shadow).
 */
export class Replayer<D extends StoredDecision = StoredDecision> {
  private readonly runtime: RulesRuntime;
  private readonly finish: (d: D, e: Evaluation) => Outcome;
  private evicted: number;

  /** `continuing`: the velocity and history this candidate shares with the one that replayed up to here, as a reload keeps them. */
  constructor(
    candidate: CompiledRuleset,
    private readonly options: Pick<BacktestOptions<D>, 'finish' | 'historyHorizonMs' | keyof Providers> = {},
    continuing?: Replayer<D>,
  ) {
    this.runtime = new RulesRuntime(candidate, options, continuing?.runtime);
    this.evicted = continuing?.evicted ?? -Infinity;
    this.finish = options.finish ?? plainOutcome;
  }

  /** Drops expired velocity entries and forgotten history every minute of decision time, as the live engine does. */
  private advance(at: number): void {
    if (at - this.evicted < EVICT_EVERY_MS) return;
    this.runtime.velocity.evictExpired(at);
    if (this.options.historyHorizonMs !== undefined) this.runtime.history.forgetBefore(at - this.options.historyHorizonMs);
    this.evicted = at;
  }

  /** A decision that only builds the state later ones are evaluated against. */
  record(d: D): void {
    const at = Date.parse(d.decidedAt);
    this.advance(at);
    this.runtime.record(d.request, at);
  }

  async evaluate(d: D): Promise<Replayed> {
    const at = Date.parse(d.decidedAt);
    this.advance(at);
    const { observed } = d;
    let replay: ReplayContext | undefined;
    try {
      const outcome = await decideOnce(
        this.runtime,
        d,
        at,
        this.finish,
        (ctx) => (replay = observed && new ReplayContext(ctx, observed)) ?? ctx,
      );
      return { outcome, reconstructed: replay?.reconstructed ?? [] };
    } catch (error) {
      if (!(error instanceof Unreproducible)) throw error;
      // It happened all the same: later decisions' velocity and history count it.
      this.runtime.record(d.request, at);
      return { unreproducible: error.message };
    }
  }
}

/** Decisions must come in log order, as the event log stores them. */
export async function backtest<D extends StoredDecision>(
  decisions: Iterable<D> | AsyncIterable<D>,
  candidate: CompiledRuleset,
  options: BacktestOptions<D> = {},
): Promise<BacktestReport> {
  const replayer = new Replayer(candidate, options);
  const from = options.from === undefined ? -Infinity : Date.parse(options.from);
  const to = options.to === undefined ? Infinity : Date.parse(options.to);
  const limit = options.samplesPerTransition ?? 5;
  // Keyed by rule ids and action names, which come from uploaded rules and stored events: Maps, never objects.
  const transitions = new Map<string, number>();
  const ruleHits = new Map<string, { current: number; candidate: number }>();
  const samples = new Map<string, BacktestSample[]>();
  const unreproducible: UnreproducibleDecision[] = [];
  const hit = (id: string, side: 'current' | 'candidate'): void => {
    let hits = ruleHits.get(id);
    if (!hits) ruleHits.set(id, (hits = { current: 0, candidate: 0 }));
    hits[side]++;
  };
  let count = 0;
  let changed = 0;
  let replayed = 0;
  let reconstructed = 0;
  let unreproducibleCount = 0;
  let fromLog = false;
  let first: number | null = null;
  let last: number | null = null;
  let slice = performance.now();
  for await (const d of decisions) {
    if (++replayed % DECISIONS_PER_TURN === 0 || performance.now() - slice > SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      slice = performance.now();
    }
    const at = Date.parse(d.decidedAt);
    if (at >= to) break;
    if (at < from) {
      replayer.record(d);
      continue;
    }
    const result = await replayer.evaluate(d);
    if ('unreproducible' in result) {
      if (unreproducibleCount++ < UNREPRODUCIBLE_LISTED)
        unreproducible.push({
          reference: referenceOf(d.request),
          decidedAt: d.decidedAt,
          position: d.position,
          reason: result.unreproducible,
        });
      continue;
    }
    const { outcome } = result;
    const { observed } = d;
    count++;
    if (observed) fromLog = true;
    if (d.position !== undefined) {
      first ??= d.position;
      last = d.position;
    }
    const rebuilt = result.reconstructed.length > 0 ? result.reconstructed : undefined;
    if (rebuilt) reconstructed++;
    for (const id of d.fired) hit(id, 'current');
    for (const id of outcome.fired) hit(id, 'candidate');
    if (outcome.action === d.action) continue;
    changed++;
    const key = `${d.action}→${outcome.action}`;
    transitions.set(key, (transitions.get(key) ?? 0) + 1);
    let list = samples.get(key);
    if (!list) samples.set(key, (list = []));
    if (list.length < limit) {
      list.push({
        reference: referenceOf(d.request),
        decidedAt: d.decidedAt,
        ...(d.position === undefined ? {} : { position: d.position }),
        currentFired: d.fired,
        candidateFired: outcome.fired,
        candidateRiskScore: outcome.riskScore,
        ...(rebuilt ? { reconstructed: [...new Set(rebuilt)] } : {}),
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
    evaluatedAgainst: fromLog ? 'log position' : 'replayed state',
    positions: { first, last },
    reconstructed,
    unreproducibleCount,
    unreproducible,
  };
}

export function formatBacktest(report: BacktestReport): string {
  const pct = report.decisions === 0 ? '0' : ((100 * report.changed) / report.decisions).toFixed(2);
  const lines = [
    `Candidate ruleset ${report.candidateVersion}, window ${report.from ?? 'start'} .. ${report.to ?? 'end'}`,
    `${report.decisions} decisions replayed, ${report.changed} changed (${pct}%)`,
  ];
  const { first, last } = report.positions;
  if (report.evaluatedAgainst === 'log position')
    lines.push(
      `Each evaluated against the log at its own position (${first ?? '-'} .. ${last ?? '-'}): the features it recorded, ` +
        `and the replayed log for ${report.reconstructed} that read features of the candidate's own`,
    );
  if (report.unreproducibleCount > 0) {
    const listed = report.unreproducible.length;
    lines.push(
      '',
      `Not reproducible: ${report.unreproducibleCount}${listed < report.unreproducibleCount ? ` (first ${listed} listed)` : ''}`,
    );
    for (const u of report.unreproducible)
      lines.push(
        `  ${u.reference ?? '(no reference)'} at ${u.decidedAt}${u.position === undefined ? '' : ` (position ${u.position})`}: ${u.reason}`,
      );
  }
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
        `  ${s.reference ?? '(no reference)'} at ${s.decidedAt}${s.position === undefined ? '' : ` (position ${s.position})`}: [${s.currentFired.join(', ')}] → [${s.candidateFired.join(', ')}] riskScore ${s.candidateRiskScore}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}
