// The state a new ruleset needs and the current one does not keep (windows of its own, history it reads first),
// rebuilt from the log's decisions. Built here or in a thread of its own (rebuild-thread.ts), which hands it over in
// parts small enough for the deciding thread to take in between decisions.
import {
  HistoryStore,
  missingReads,
  nothingToRead,
  sliceSnapshot,
  VelocityStore,
  type CompiledRuleset,
  type HistoryReads,
  type HistorySnapshot,
  type VelocitySnapshot,
} from '../rules/index.js';
import type { StoredEvent } from '../store/index.js';
import type { TransactionDecidedData } from './events.js';

/** What a swap to a new ruleset rebuilds: windows from `windowsFrom`, the history `missing` names from `historyFrom`. */
export interface RebuildPlan {
  readonly newWindows: boolean;
  readonly missing: HistoryReads;
  /** Infinity when nothing is rebuilt of it. */
  readonly windowsFrom: number;
  readonly historyFrom: number;
}

/** A business's state rebuilt from the log for a new ruleset: its new windows (if any), and the history it lacked. */
export interface Rebuilt {
  readonly velocity: VelocityStore | undefined;
  readonly history: HistoryStore;
}

/** A slice of one business's rebuilt windows or history (or neither): one message from the rebuild thread. */
export interface RebuiltPart {
  readonly businessId: string;
  readonly velocity?: VelocitySnapshot;
  readonly history?: HistorySnapshot;
}

/** What `next` needs rebuilt from the log when it replaces `current`; undefined when everything carries over. */
export function planRebuild(
  current: CompiledRuleset,
  next: CompiledRuleset,
  now: number,
  historyHorizonMs: number,
): RebuildPlan | undefined {
  const known = new Set(current.features.map((f) => f.id));
  const newWindows = !next.features.every((f) => known.has(f.id));
  const missing = missingReads(current.history, next.history);
  if (!newWindows && nothingToRead(missing)) return undefined;
  return {
    newWindows,
    missing,
    windowsFrom: newWindows ? now - maxWindowMs(next) : Infinity,
    historyFrom: nothingToRead(missing) ? Infinity : now - historyHorizonMs,
  };
}

export function maxWindowMs(ruleset: CompiledRuleset): number {
  return ruleset.features.reduce((max, f) => Math.max(max, f.windowMs), 0);
}

export class RulesetRebuild {
  readonly rebuilt = new Map<string, Rebuilt>();
  /** The earliest decision time the rebuild reads. */
  readonly from: number;

  constructor(
    readonly next: CompiledRuleset,
    readonly plan: RebuildPlan,
  ) {
    this.from = Math.min(plan.windowsFrom, plan.historyFrom);
  }

  of(businessId: string): Rebuilt {
    let r = this.rebuilt.get(businessId);
    if (!r) {
      r = {
        velocity: this.plan.newWindows ? new VelocityStore(this.next) : undefined,
        history: new HistoryStore(this.next.schema, this.plan.missing),
      };
      this.rebuilt.set(businessId, r);
    }
    return r;
  }

  /** Records a TransactionDecided event. */
  record(e: StoredEvent): void {
    const data = e.data as TransactionDecidedData;
    const at = Date.parse(data.decidedAt);
    if (at < this.from) return;
    const r = this.of(e.metadata.businessId);
    if (at >= this.plan.windowsFrom) r.velocity!.record(data.request, at);
    if (at >= this.plan.historyFrom) r.history.record(data.request, at);
  }

  /**
   * The rebuilt state as parts: each business's windows and history in slices of at most `entries` entries or
   * times (a window is never split), so that taking in one part holds the deciding thread for a millisecond or so.
   */
  *parts(entries: number): Generator<RebuiltPart> {
    for (const [businessId, r] of this.rebuilt) {
      let any = false;
      for (const velocity of r.velocity ? sliceSnapshot(r.velocity.snapshot(), entries) : []) {
        any = true;
        yield { businessId, velocity };
      }
      for (const part of historySlices(businessId, r.history.snapshot(), entries)) {
        any = true;
        yield part;
      }
      // At least one part a business, so that the taker knows every business the rebuild saw.
      if (!any) yield { businessId };
    }
  }

  /** Takes in a part of a rebuild of the same plan (made by parts()), elsewhere. */
  absorb(part: RebuiltPart): void {
    const r = this.of(part.businessId);
    if (part.velocity) {
      if (!r.velocity) throw new Error('the rebuilt windows are not those of the new ruleset');
      r.velocity.absorb(part.velocity);
    }
    if (part.history) r.history.absorb(part.history);
  }
}

function* historySlices(businessId: string, history: HistorySnapshot, entries: number): Generator<RebuiltPart> {
  const { latest } = history;
  for (const [name, pair] of history.pairs)
    for (const times of slices(pair.times, entries))
      yield { businessId, history: { latest, pairs: new Map([[name, { ...pair, times }]]), last: new Map() } };
  for (const [name, key] of history.last)
    for (const times of slices(key.times, entries))
      yield { businessId, history: { latest, pairs: new Map(), last: new Map([[name, { ...key, times }]]) } };
}

function* slices<K, V>(map: ReadonlyMap<K, V>, size: number): Generator<Map<K, V>> {
  let part = new Map<K, V>();
  for (const [k, v] of map) {
    part.set(k, v);
    if (part.size < size) continue;
    yield part;
    part = new Map();
  }
  if (part.size > 0) yield part;
}
