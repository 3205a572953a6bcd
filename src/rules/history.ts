// History facts fed by the same record() stream as velocity: which (owner, seen) pairs occurred before
// (this device for this user, this receiver for this sender) and when each key last transacted.
// Memory grows with distinct pairs; forgetBefore() bounds it (a pair unseen for that long counts as new).
import type { Schema } from './schema.js';
import { convert, readPath } from './values.js';

const read = (input: unknown, path: string): string | undefined =>
  convert(readPath(input, path.split('.')), 'string') as string | undefined;

export class HistoryStore {
  private readonly pairs = new Map<string, Map<string, number>>();
  private readonly last = new Map<string, Map<string, number>>();

  constructor(private readonly schema: Schema) {
    for (const name of Object.keys(schema.firstSeenPairs)) this.pairs.set(name, new Map());
    for (const name of Object.keys(schema.velocityKeys)) this.last.set(name, new Map());
  }

  private pairKey(name: string, input: unknown): string | undefined {
    const [ownerPath, seenPath] = this.schema.firstSeenPairs[name]!;
    const owner = read(input, ownerPath);
    const seen = read(input, seenPath);
    // NUL cannot occur in JSON identifiers the analysts see, so it separates the two parts unambiguously.
    return owner === undefined || seen === undefined ? undefined : `${owner}\u0000${seen}`;
  }

  record(tx: unknown, at: number): void {
    for (const [name, seen] of this.pairs) {
      const k = this.pairKey(name, tx);
      if (k !== undefined) seen.set(k, at);
    }
    for (const [name, times] of this.last) {
      const k = read(tx, this.schema.velocityKeys[name]!);
      if (k !== undefined) times.set(k, Math.max(at, times.get(k) ?? at));
    }
  }

  /** True when the pair never occurred before; missing when either side of the pair is missing. */
  firstSeen(pair: string, tx: unknown): boolean | undefined {
    const k = this.pairKey(pair, tx);
    return k === undefined ? undefined : !this.pairs.get(pair)?.has(k);
  }

  lastSeen(key: string, tx: unknown): number | undefined {
    const k = read(tx, this.schema.velocityKeys[key]!);
    return k === undefined ? undefined : this.last.get(key)?.get(k);
  }

  forgetBefore(cutoff: number): void {
    for (const maps of [this.pairs, this.last]) {
      for (const m of maps.values()) for (const [k, t] of m) if (t < cutoff) m.delete(k);
    }
  }
}
