// Backtest of candidate rules over one business's stored decisions, in log order, through src/rules' backtest.
import { ValidationError } from '../errors.js';
import { backtest, compileSources, RuleErrors, type BacktestReport, type RuleSources, type StoredDecision } from '../rules/index.js';
import type { EventStore } from '../store/index.js';
import type { TransactionDecidedData } from './events.js';
import type { BusinessState } from './business-state.js';

export interface BacktestRequest {
  /** Candidate rule files by name (`velocity.rules`) and list files (`lists/high_risk_countries.txt`). */
  files: Record<string, string>;
  from?: string;
  to?: string;
}

/** Splits uploaded files into rule sources; a name that is neither a .rules file nor a lists/*.txt file is refused. */
export function candidateSources(files: Record<string, string>): RuleSources {
  const sources: { files: { path: string; text: string }[]; lists: { path: string; text: string }[] } = { files: [], lists: [] };
  for (const [name, text] of Object.entries(files)) {
    if (/^[\w.-]+\.rules$/.test(name)) sources.files.push({ path: name, text });
    else if (/^lists\/[\w.-]+\.txt$/.test(name)) sources.lists.push({ path: name, text });
    else throw new ValidationError(`files.${name} must be named NAME.rules or lists/NAME.txt`, `files.${name}`);
  }
  if (sources.files.length === 0) throw new ValidationError('files must hold at least one .rules file', 'files');
  sources.files.sort((a, b) => a.path.localeCompare(b.path));
  return sources;
}

/**
 * The business's decisions in log order, read a page at a time rather than all into memory, up to the head of the
 * log when the backtest starts (decisions go on meanwhile).
 */
export async function* storedDecisions(store: EventStore, businessId: string | undefined, before?: string): AsyncGenerator<StoredDecision> {
  const head = await store.head();
  for await (const e of store.iterateAll({ types: ['TransactionDecided'], pageSize: 5000 })) {
    if (e.position > head) return;
    if (businessId !== undefined && e.metadata.businessId !== businessId) continue;
    const d = e.data as TransactionDecidedData;
    if (before !== undefined && d.decidedAt >= before) return;
    yield {
      request: d.request,
      decidedAt: d.decidedAt,
      rulesetVersion: d.rulesetVersion,
      action: d.decision.action.result,
      fired: d.decision.ruleResult?.map((r) => r.id) ?? [],
    };
  }
}

/** Compiles the candidate (rule errors become a ValidationError listing them) and replays the decisions. */
export async function runBacktest(
  store: EventStore,
  businessId: string | undefined,
  lists: BusinessState['lists'] | undefined,
  sources: RuleSources,
  window: { from?: string; to?: string },
): Promise<BacktestReport> {
  let candidate: ReturnType<typeof compileSources>;
  try {
    candidate = compileSources(sources);
  } catch (e) {
    if (e instanceof RuleErrors) throw new ValidationError(`candidate rules do not compile: ${e.format()}`, 'files');
    throw e;
  }
  return backtest(storedDecisions(store, businessId, window.to), candidate, { lists, from: window.from, to: window.to });
}
