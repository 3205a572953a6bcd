// What one business's decisions depend on besides the request: its blacklists and saved devices, its
// velocity windows and its transaction history. All of it is derived from events, held in memory.
import { HistoryStore, MemoryLists, VelocityStore, type CompiledRuleset } from '../rules/index.js';
import { KNOWN_DEVICES, LISTS, type MonitoringEvent } from './events.js';

export class BusinessState {
  readonly lists = new MemoryLists();
  velocity: VelocityStore;
  readonly history: HistoryStore;

  constructor(ruleset: CompiledRuleset) {
    this.velocity = new VelocityStore(ruleset);
    this.history = new HistoryStore(ruleset.schema);
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
}
