// Backtest of candidate rules over one business's stored decisions, in log order, through src/rules' backtest,
// each against the world at its log position: the features it recorded, and the business's lists as the list
// events before it left them. The decisions are found through the business's index of decision positions
// (projection.ts), so a backtest reads its own business's decisions only; parsing, checking and replaying run in
// a thread of their own (backtest-threads.ts) so that the server's event loop never waits for them.
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
import type { EventStore, StoredEvent } from '../store/index.js';
import { applyListEvent } from './business-state.js';
import { toDecision } from './decision.js';
import type { FeaturesUsed, MonitoringEvent, MonitoringEventType, TransactionDecidedData } from './events.js';
import { HISTORY_HORIZON_MS } from './state.js';
import type { ListImportedData } from '../screening/events.js';
import { LIST_VERSION_EVENTS, ScreeningListsAt } from '../screening/lists-at.js';
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
const LIST_EVENTS: readonly MonitoringEventType[] = ['BlacklistEntryAdded', 'BlacklistEntryRemoved', 'CustomerDeviceSaved'];

/** A decision as the backtest replays it: what it recorded, and the blacklist hits the engine stopped it for. */
export interface LoggedDecision extends StoredDecision {
  readonly position: number;
  readonly blacklistHits: FeaturesUsed['blacklistHits'];
}

/** What the decisions' world is made of besides velocity and history, kept as of each decision's position. */
export interface World {
  /** The business's blacklists and saved devices. */
  readonly lists: MemoryLists;
  /** The screening list versions in force (none: the backtest has no screening lists). */
  readonly screening?: ScreeningListsAt;
}

/**
 * The business's decisions in log order up to position `upTo` (the head when the backtest started: decisions go
 * on meanwhile) and before the time `before`, read a page at a time rather than all into memory. Before each one
 * is yielded, `world` is as of its position: the list, device and screening-list events before it, read from the
 * log in step with the decisions, applied as the live state applies them.
 */
export async function* storedDecisions(
  store: EventStore,
  db: Kysely<MonitoringTables>,
  businessId: string,
  upTo: number,
  world: World,
  before?: string,
): AsyncGenerator<LoggedDecision> {
  const types = world.screening ? [...LIST_EVENTS, ...LIST_VERSION_EVENTS] : LIST_EVENTS;
  const listEvents = store.iterateAll({ types, pageSize: PAGE })[Symbol.asyncIterator]();
  let nextList = (await listEvents.next()).value as StoredEvent | undefined;
  let after = 0;
  try {
    for (;;) {
      const positions = await decisionPositions(db, businessId, { after, upTo, limit: PAGE });
      if (positions.length === 0) return;
      for (const e of await store.readPositions(positions)) {
        while (nextList && nextList.position < e.position) {
          if (nextList.type === 'ScreeningListImported') world.screening?.apply(nextList.data as ListImportedData);
          else if (nextList.metadata.businessId === businessId)
            applyListEvent(world.lists, { type: nextList.type, data: nextList.data } as MonitoringEvent);
          nextList = (await listEvents.next()).value as StoredEvent | undefined;
        }
        const d = loggedDecision(e);
        if (before !== undefined && d.decidedAt >= before) return;
        yield d;
      }
      after = positions[positions.length - 1]!;
    }
  } finally {
    await listEvents.return?.(undefined);
  }
}

/** A TransactionDecided event as a backtest (and a shadow) replays it. */
export function loggedDecision(e: StoredEvent): LoggedDecision {
  return decisionAt(e.position, e.data as TransactionDecidedData);
}

/** A decision's data, at the position its event was committed at, as a backtest replays it. */
export function decisionAt(position: number, d: TransactionDecidedData): LoggedDecision {
  return {
    request: d.request,
    decidedAt: d.decidedAt,
    rulesetVersion: d.rulesetVersion,
    action: d.decision.action.result,
    fired: d.decision.ruleResult?.map((r) => r.id) ?? [],
    position,
    observed: d.features,
    blacklistHits: d.features.blacklistHits,
  };
}

/** What a backtest needs besides the log: the business, its candidate and its window. */
export interface BacktestJob {
  businessId: string;
  sources: RuleSources;
  window: BacktestWindow;
  /** The log position the backtest reads up to. */
  upTo: number;
  /** History unseen this long counts as new, as in the live state (default 400 days). */
  historyHorizonMs?: number;
  /** Where imported screening lists keep their records (none: a decision needing an unrecorded score is unreproducible). */
  dataDir?: string;
  /** Changed decisions listed per transition (default 5). */
  samplesPerTransition?: number;
}

/**
 * Compiles the candidate (rule errors become a ValidationError listing them) and replays the decisions, here. The
 * engine's blacklist stop applies to the candidate as it did live, on the hits each decision recorded.
 */
export async function runBacktest(store: EventStore, db: Kysely<MonitoringTables>, job: BacktestJob): Promise<BacktestReport> {
  let candidate: ReturnType<typeof compileSources>;
  try {
    candidate = compileSources(job.sources);
  } catch (e) {
    if (e instanceof RuleErrors) throw new ValidationError(`candidate rules do not compile: ${e.format()}`, 'files');
    throw e;
  }
  const { from, to } = job.window;
  const world: World = { lists: new MemoryLists(), screening: job.dataDir === undefined ? undefined : new ScreeningListsAt(job.dataDir) };
  const decisions = storedDecisions(store, db, job.businessId, job.upTo, world, to);
  return backtest(decisions, candidate, {
    lists: world.lists,
    screeningScore: world.screening?.bestScore,
    from,
    to,
    historyHorizonMs: job.historyHorizonMs ?? HISTORY_HORIZON_MS,
    samplesPerTransition: job.samplesPerTransition,
    finish: (d: LoggedDecision, evaluation) => {
      const decision = toDecision('', candidate, evaluation, d.blacklistHits);
      return { action: decision.action.result, fired: decision.ruleResult?.map((r) => r.id) ?? [], riskScore: decision.riskScore };
    },
  });
}

/** The thread's answer: a report, a refusal of the candidate naming what is wrong, or a failure. */
export type BacktestReply = { report: BacktestReport } | { invalid: { message: string; field?: string } } | { failure: string };
