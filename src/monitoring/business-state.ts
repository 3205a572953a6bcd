// What one business's decisions depend on besides the request: its blacklists and saved devices, its
// velocity windows and its transaction history. All of it is derived from events, held in memory.
import {
  HistoryStore,
  MemoryLists,
  VelocityStore,
  type CompiledRuleset,
  type Env,
  type HistorySnapshot,
  type VelocitySnapshot,
} from '../rules/index.js';
import { KNOWN_DEVICES, LISTS, type MonitoringEvent } from './events.js';

export interface BusinessSnapshot {
  readonly lists: ReadonlyMap<string, ReadonlySet<string>>;
  readonly velocity: VelocitySnapshot;
  readonly history: HistorySnapshot;
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
    switch (event.type) {
      case 'BlacklistEntryAdded':
        this.lists.add(LISTS[event.data.list].ruleList, event.data.value);
        break;
      case 'BlacklistEntryRemoved':
        this.lists.remove(LISTS[event.data.list].ruleList, event.data.value);
        break;
      case 'CustomerDeviceSaved':
        this.lists.add(KNOWN_DEVICES, event.data.device.deviceId, event.data.customerId);
        break;
      case 'TransactionDecided':
        break;
    }
  }

  record(request: unknown, at: number, velocity = true): void {
    if (velocity) this.velocity.record(request, at);
    this.history.record(request, at);
  }

  /**
   * Records a request through the Env it was just evaluated with: its converted fields and the velocity
   * records the evaluation looked up serve again, instead of a fresh Env converting and looking up everything.
   */
  recordEvaluated(env: Env, at: number): void {
    this.velocity.recordEnv(env, at);
    this.history.record(env.input, at);
  }
}
