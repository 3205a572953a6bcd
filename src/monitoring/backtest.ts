// Backtest of candidate rules over one business's stored decisions, in log order, through src/rules' backtest.
// The decisions are found through the business's index of decision positions (projection.ts), so a backtest
// reads its own business's events only; parsing, checking and replaying run in a thread of their own
// (backtest-thread.ts) so that the server's event loop never waits for them.
import type { Kysely } from 'kysely';
import { ValidationError } from '../errors.js';
import {
  backtest,
  compileSources,
  MemoryLists,
  RuleErrors,
  type BacktestReport,
  type RuleSources,
  type StoredDecision,
} from '../rules/index.js';
import type { EventStore } from '../store/index.js';
import { recordOf } from '../own-keys.js';
import { startThread, threadEntry } from '../threads.js';
import type { TransactionDecidedData } from './events.js';
import { decisionPositions, type MonitoringTables } from './projection.js';

export interface BacktestRequest {
  /** Candidate rule files by name (`velocity.rules`) and list files (`lists/high_risk_countries.txt`). */
  files: Record<string, string>;
  from?: string;
  to?: string;
}

export interface BacktestWindow {
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

/** Decisions read per query: a page of positions from the index, then their events by position. */
const PAGE = 500;

/**
 * The business's decisions in log order up to position `upTo` (the head when the backtest started: decisions go
 * on meanwhile) and before the time `before`, read a page at a time rather than all into memory.
 */
export async function* storedDecisions(
  store: EventStore,
  db: Kysely<MonitoringTables>,
  businessId: string,
  upTo: number,
  before?: string,
): AsyncGenerator<StoredDecision> {
  let after = 0;
  for (;;) {
    const positions = await decisionPositions(db, businessId, { after, upTo, limit: PAGE });
    if (positions.length === 0) return;
    for (const e of await store.readPositions(positions)) {
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
    after = positions[positions.length - 1]!;
  }
}

/** What a backtest needs besides the log: the business, its candidate, its window and its lists. */
export interface BacktestJob {
  businessId: string;
  sources: RuleSources;
  window: BacktestWindow;
  /** The business's lists (MemoryLists.snapshot()), which answer the candidate's list tests. */
  lists: ReadonlyMap<string, ReadonlySet<string>>;
  /** The log position the backtest reads up to. */
  upTo: number;
}

/** Compiles the candidate (rule errors become a ValidationError listing them) and replays the decisions, here. */
export async function runBacktest(store: EventStore, db: Kysely<MonitoringTables>, job: BacktestJob): Promise<BacktestReport> {
  let candidate: ReturnType<typeof compileSources>;
  try {
    candidate = compileSources(job.sources);
  } catch (e) {
    if (e instanceof RuleErrors) throw new ValidationError(`candidate rules do not compile: ${e.format()}`, 'files');
    throw e;
  }
  const { from, to } = job.window;
  const decisions = storedDecisions(store, db, job.businessId, job.upTo, to);
  return backtest(decisions, candidate, { lists: MemoryLists.restored(job.lists), from, to });
}

/** The thread's answer: a report, a refusal of the candidate naming what is wrong, or a failure. */
export type BacktestReply = { report: BacktestReport } | { invalid: { message: string; field?: string } } | { failure: string };

/** A report as it crossed from the thread: structured cloning gave its records Object.prototype back. */
const withoutPrototypes = (report: BacktestReport): BacktestReport => ({
  ...report,
  transitions: recordOf(Object.entries(report.transitions)),
  ruleHits: recordOf(Object.entries(report.ruleHits)),
  samples: recordOf(Object.entries(report.samples)),
});

/** Runs the backtest in a thread of its own over the database file at `dbPath`, read on a connection of its own. */
export function backtestInThread(dbPath: string, job: BacktestJob): Promise<BacktestReport> {
  const worker = startThread(threadEntry(import.meta.url, 'backtest-thread'), { dbPath, job });
  return new Promise((resolve, reject) => {
    worker.once('message', (reply: BacktestReply) => {
      if ('report' in reply) resolve(withoutPrototypes(reply.report));
      else if ('invalid' in reply) reject(new ValidationError(reply.invalid.message, reply.invalid.field));
      else reject(new Error(`backtest thread failed: ${reply.failure}`));
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`backtest thread stopped (exit code ${code})`)));
  });
}
