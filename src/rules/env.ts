// The per-evaluation state handed to compiled closures: the raw input, a lazily filled cache of converted
// field values (each request number becomes a Decimal at most once per decision) and the engine context.
import type { Runtime } from './builtins.js';
import type { FeatureContext } from './context.js';
import type { Value } from './values.js';

/** Marks a field slot not yet converted (undefined already means "missing"). */
export const UNSET: unique symbol = Symbol('unset');

export class Env implements Runtime {
  readonly slots: (Value | typeof UNSET)[];

  constructor(
    readonly input: unknown,
    readonly ctx: FeatureContext,
    readonly utcOffsetMs: number,
    slotCount: number,
  ) {
    this.slots = new Array<Value | typeof UNSET>(slotCount).fill(UNSET);
  }
}

function unavailable(): never {
  throw new Error('internal error: a velocity filter reached the feature context');
}

/** Context for past transactions inside velocity aggregates, where the checker forbids context features. */
export const NO_CONTEXT: FeatureContext = {
  now: 0,
  inList: unavailable,
  velocity: unavailable,
  firstSeen: unavailable,
  lastSeen: unavailable,
};
