// What a ruleset needs from the engine at decision time. The engine implements it (usually through
// createTransactionContext in engine-context.ts); tests and backtests use the same helper.
import type { Decimal } from 'decimal.js';
import type { Env } from './env.js';

export type ScreeningKind = 'sanctions' | 'pep';

export interface FeatureContext {
  /** Decision time, epoch ms: the reference for velocity windows, `daysSince` and friends. */
  readonly now: number;
  /** Membership in an event-sourced list (blacklist.users, knownDevices...). File lists never reach this. */
  inList(list: string, value: string): boolean;
  /**
   * Value of a velocity feature (FeatureSpec.id) for the current transaction's key, current transaction included.
   * Compiled rules pass their Env over the current transaction as `current`, so its converted fields serve the
   * feature filters too; callers without one may omit it.
   */
  velocity(featureId: string, current?: Env): Decimal | undefined;
  /** Whether the pair named in Schema.firstSeenPairs (device, receiver...) was never seen before this transaction. */
  firstSeen(pair: string): boolean | undefined;
  /** Time of the previous transaction with the same velocity key (user, senderAccount...), epoch ms. */
  lastSeen(key: string): number | undefined;
  /** Name-screening score 0–100; absent provider means 0. */
  screeningScore?(kind: ScreeningKind, name: string): Decimal | number;
  /** Country of an IP address; absent provider means missing. */
  ipCountry?(ip: string): string | undefined;
}
