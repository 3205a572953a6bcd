// The feature context of a backtested decision: every feature the live decision read is answered with the value
// it recorded (the world as it was, exactly), and only a feature it did not read comes from the state the backtest
// replayed from the log up to the decision's position. A read neither can answer (a screening or IP lookup the
// live decision never made, whose source keeps no history here) makes the decision unreproducible.
import type { Decimal } from 'decimal.js';
import type { FeatureContext, ScreeningKind } from './context.js';
import type { Env } from './env.js';
import { Dec } from './values.js';

/** What a live decision's rules read beyond the request, with the values they saw (src/monitoring records it). */
export interface ObservedFeatures {
  readonly velocity: Readonly<Record<string, string | null>>;
  readonly lists: Readonly<Record<string, boolean>>;
  readonly firstSeen: Readonly<Record<string, boolean | null>>;
  readonly lastSeen: Readonly<Record<string, string | null>>;
  /** Null: the decision was recorded before screening scores were kept. */
  readonly screening: Readonly<Record<string, string>> | null;
  readonly ipCountries: Readonly<Record<string, string | null>> | null;
}

/** A feature read that neither the decision's record nor the replayed log can answer as it was. */
export class Unreproducible extends Error {}

/**
 * Thrown by a provider whose state as of the decision's position is still loading (a backtest's screening lists):
 * the backtest waits for `loaded`, then evaluates the decision again. Nothing was recorded of it meanwhile.
 */
export class NotYetLoaded extends Error {
  constructor(readonly loaded: Promise<unknown>) {
    super('feature source still loading');
  }
}

/** Keys embed request values (`__proto__` among them): only a record's own properties count. */
const has = (record: object, key: string): boolean => Object.hasOwn(record, key);

const SCREENING_FN: Record<ScreeningKind, string> = { sanctions: 'sanctionsScore', pep: 'pepScore' };

export class ReplayContext implements FeatureContext {
  /** The reads answered from the replayed state rather than the record, e.g. `velocity count(by user over 1 hour)`. */
  readonly reconstructed: string[] = [];

  constructor(
    private readonly base: FeatureContext,
    private readonly observed: ObservedFeatures,
  ) {}

  get now(): number {
    return this.base.now;
  }

  inList(list: string, value: string): boolean {
    const key = `${list}:${value}`;
    if (has(this.observed.lists, key)) return this.observed.lists[key]!;
    this.reconstructed.push(`list ${key}`);
    return this.base.inList(list, value);
  }

  velocity(featureId: string, current?: Env): Decimal | undefined {
    if (has(this.observed.velocity, featureId)) {
      const v = this.observed.velocity[featureId]!;
      return v === null ? undefined : new Dec(v);
    }
    this.reconstructed.push(`velocity ${featureId}`);
    return this.base.velocity(featureId, current);
  }

  firstSeen(pair: string): boolean | undefined {
    if (has(this.observed.firstSeen, pair)) return this.observed.firstSeen[pair] ?? undefined;
    this.reconstructed.push(`firstSeen ${pair}`);
    return this.base.firstSeen(pair);
  }

  lastSeen(key: string): number | undefined {
    if (has(this.observed.lastSeen, key)) {
      const at = this.observed.lastSeen[key];
      return at === null || at === undefined ? undefined : Date.parse(at);
    }
    this.reconstructed.push(`lastSeen ${key}`);
    return this.base.lastSeen(key);
  }

  screeningScore(kind: ScreeningKind, name: string): Decimal | number {
    const read = `${SCREENING_FN[kind]}(${JSON.stringify(name)})`;
    const scores = this.observed.screening;
    if (scores === null) throw new Unreproducible(`${read}: the decision was recorded before screening scores were kept`);
    const key = `${kind}:${name}`;
    if (has(scores, key)) return new Dec(scores[key]!);
    // A provider of the lists as of the decision's position throws Unreproducible itself when it cannot load them.
    if (!this.base.screeningScore)
      throw new Unreproducible(`${read}: the decision did not screen this name, and no screening lists are available to the backtest`);
    try {
      const score = this.base.screeningScore(kind, name);
      this.reconstructed.push(`screening ${key}`);
      return score;
    } catch (error) {
      if (!(error instanceof Unreproducible)) throw error;
      throw new Unreproducible(`${read}: the decision did not screen this name, and ${error.message}`);
    }
  }

  ipCountry(ip: string): string | undefined {
    const countries = this.observed.ipCountries;
    const read = `ipCountry(${JSON.stringify(ip)})`;
    if (countries === null) throw new Unreproducible(`${read}: the decision was recorded before IP countries were kept`);
    if (has(countries, ip)) return countries[ip] ?? undefined;
    throw new Unreproducible(`${read}: the decision did not look this address up, and IP geolocation keeps no history`);
  }
}
