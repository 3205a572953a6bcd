// What one business's decisions depend on besides the request: its blacklists and saved devices, its
// velocity windows and its transaction history. All of it is derived from events, held in memory.
import {
  HistoryStore,
  MemoryLists,
  VelocityStore,
  type CompiledRuleset,
  type Env,
  type HistorySnapshot,
  type HistoryUndo,
  type VelocitySnapshot,
  type VelocityUndo,
} from '../rules/index.js';
import { KNOWN_DEVICES, LISTS, type MonitoringEvent } from './events.js';

export interface BusinessSnapshot {
  readonly lists: ReadonlyMap<string, ReadonlySet<string>>;
  readonly velocity: VelocitySnapshot;
  readonly history: HistorySnapshot;
}

/** A decision recorded before its append: what it takes to take it out again should the append fail. */
export interface RecordedDecision {
  readonly env: Env;
  readonly at: number;
  readonly velocity: VelocityStore;
  readonly undo: VelocityUndo;
  readonly history: HistoryUndo;
}

export class BusinessState {
  constructor(
    ruleset: CompiledRuleset,
    readonly lists = new MemoryLists(),
    public velocity = new VelocityStore(ruleset),
    public history = new HistoryStore(ruleset.schema, ruleset.history),
  ) {}

  /** Shares live maps and sets (see each store's snapshot): serialise it before the state changes. */
  snapshot(): BusinessSnapshot {
    return { lists: this.lists.snapshot(), velocity: this.velocity.snapshot(), history: this.history.snapshot() };
  }

  /** The state a snapshot describes, or undefined when the ruleset needs velocity or history it lacks. */
  static restored(ruleset: CompiledRuleset, snapshot: BusinessSnapshot): BusinessState | undefined {
    const velocity = VelocityStore.restored(ruleset, snapshot.velocity);
    const history = HistoryStore.restored(ruleset.schema, ruleset.history, snapshot.history);
    return velocity && history && new BusinessState(ruleset, MemoryLists.restored(snapshot.lists), velocity, history);
  }

  /** Applies a list or device event; decisions are recorded through `record`. */
  applyListEvent(event: MonitoringEvent): void {
    applyListEvent(this.lists, event);
  }

  record(request: unknown, at: number, velocity = true): void {
    if (velocity) this.velocity.record(request, at);
    this.history.record(request, at);
  }

  /**
   * Records a request through the Env it was just evaluated with: its converted fields and the velocity
   * records the evaluation looked up serve again, instead of a fresh Env converting and looking up everything.
   */
  recordEvaluated(env: Env, at: number): RecordedDecision {
    const recorded: RecordedDecision = { env, at, velocity: this.velocity, undo: { displaced: new Map() }, history: [] };
    this.velocity.recordEnv(env, at, undefined, recorded.undo);
    this.history.record(env.input, at, recorded.history);
    return recorded;
  }

  /** Whether nothing is known of the business: no list entry, no velocity entry, no history. */
  get empty(): boolean {
    const history = this.history.snapshot();
    return (
      [...this.lists.snapshot().values()].every((s) => s.size === 0) &&
      this.velocity.stats().entries === 0 &&
      [...history.pairs.values(), ...history.last.values()].every((h) => h.times.size === 0)
    );
  }

  /** A decision recordEvaluated() added has its append done; one that failed is taken out (the log never holds it). */
  settle(recorded: RecordedDecision, failed: boolean): void {
    // The store it went into: a swap waits for decisions in flight, so it is still this business's.
    if (failed) recorded.velocity.unrecordEnv(recorded.env, recorded.at, recorded.undo);
    HistoryStore.settle(recorded.history, failed);
  }
}

/** A business's lists after a list or device event: the live state and a backtest's replay evolve them alike. */
export function applyListEvent(lists: MemoryLists, event: MonitoringEvent): void {
  switch (event.type) {
    case 'BlacklistEntryAdded':
      lists.add(LISTS[event.data.list].ruleList, event.data.value);
      break;
    case 'BlacklistEntryRemoved':
      lists.remove(LISTS[event.data.list].ruleList, event.data.value);
      break;
    case 'CustomerDeviceSaved':
      lists.add(KNOWN_DEVICES, event.data.device.deviceId, event.data.customerId);
      break;
    case 'TransactionDecided':
      break;
  }
}
