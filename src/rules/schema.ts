// What a ruleset may refer to. The checker and compiler are parameterised by a Schema, so the same language
// serves the instant transaction path (fields.ts) and any other subject, e.g. customer risk.

export type FieldType = 'string' | 'decimal' | 'integer' | 'boolean' | 'timestamp';

/** Features that need the engine (FeatureContext) rather than the input alone. */
export type ContextFeature = 'clock' | 'history' | 'screening' | 'geo';

export interface ActionDef {
  readonly name: string;
  readonly code: number;
}

export interface EngineListDef {
  /** Field whose value scopes the list, e.g. knownDevices are per user. Absent for global lists. */
  readonly scope?: string;
}

export interface Schema {
  readonly name: string;
  /** Dotted path → type, e.g. `transactionData.amount` → decimal. */
  readonly fields: Readonly<Record<string, FieldType>>;
  /** Lists maintained outside the rule files (event-sourced), answered by FeatureContext.inList. */
  readonly engineLists: Readonly<Record<string, EngineListDef>>;
  /** Velocity grouping keys → the field holding the key value. Empty: no velocity aggregates. */
  readonly velocityKeys: Readonly<Record<string, string>>;
  /** First-seen pairs: name → [owner field, seen field], e.g. device → [user id, device id]. */
  readonly firstSeenPairs: Readonly<Record<string, readonly [string, string]>>;
  readonly contextFeatures: ReadonlySet<ContextFeature>;
  /** Actions from least to most severe; the decide section must end with `otherwise <first action>`-or-any. */
  readonly actions: readonly ActionDef[];
  /** Longest velocity window accepted by the checker, in ms. */
  readonly maxWindowMs: number;
  /** Offset of local time from UTC, for `hour(...)`. */
  readonly utcOffsetMinutes: number;
}

export const MINUTE_MS = 60_000;
export const DAY_MS = 24 * 60 * MINUTE_MS;
