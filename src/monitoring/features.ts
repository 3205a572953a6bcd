// The feature context of one decision: the rules runtime's context over this business's lists, velocity
// windows and history, wrapped so that every feature the rules consult is recorded with its value. Rules
// short-circuit, so what is recorded is exactly what the decision depended on.
import type { Decimal } from 'decimal.js';
import {
  createTransactionContext,
  type CompiledRuleset,
  type Env,
  type FeatureContext,
  type HistoryStore,
  type ListProvider,
  type Providers,
  type ScreeningKind,
  type VelocityStore,
} from '../rules/index.js';
import { LISTS, type FeaturesUsed, type ListKind } from './events.js';
import type { InstantRequest } from './request-schema.js';

/** This business's state that features read: its lists, velocity windows and history. */
export interface BusinessSources {
  readonly lists: ListProvider;
  readonly velocity: VelocityStore;
  readonly history: HistoryStore;
}

/** One object per decision with its methods on the prototype: no closures are created per request. */
export class RecordingContext implements FeatureContext {
  readonly now: number;
  readonly used: FeaturesUsed;
  readonly #base: FeatureContext;
  readonly #screening: Record<string, string>;
  readonly #ipCountries: Record<string, string | null>;

  constructor(providers: Providers, business: BusinessSources, ruleset: CompiledRuleset, input: InstantRequest, now: number) {
    // Every field named: on Node 20's V8 an object spread followed by further properties costs ~1.5 µs.
    const { lists, velocity, history } = business;
    const base = createTransactionContext({
      ruleset,
      input,
      now,
      lists,
      velocity,
      history,
      screeningScore: providers.screeningScore,
      ipCountry: providers.ipCountry,
    });
    this.#base = base;
    this.now = now;
    // List, screening and IP keys embed request values, so each is a new property name: on a plain object every
    // one would add a hidden-class transition that V8 keeps forever; a prototype-less object is a dictionary from
    // the start.
    this.#screening = Object.create(null) as Record<string, string>;
    this.#ipCountries = Object.create(null) as Record<string, string | null>;
    this.used = {
      velocity: {},
      lists: Object.create(null) as FeaturesUsed['lists'],
      firstSeen: {},
      lastSeen: {},
      screening: this.#screening,
      ipCountries: this.#ipCountries,
      blacklistHits: blacklistHits(lists, input),
    };
  }

  // Kept rather than recomputed when the decision is explained: a later list version may score the name otherwise.
  screeningScore(kind: ScreeningKind, name: string): Decimal | number {
    const score = this.#base.screeningScore?.(kind, name) ?? 0;
    this.#screening[`${kind}:${name}`] = score.toString();
    return score;
  }

  ipCountry(ip: string): string | undefined {
    const country = this.#base.ipCountry?.(ip);
    this.#ipCountries[ip] = country ?? null;
    return country;
  }

  inList(list: string, value: string): boolean {
    const hit = this.#base.inList(list, value);
    this.used.lists[`${list}:${value}`] = hit;
    return hit;
  }

  // The evaluation's own Env is passed on, so the window filters reuse its converted fields.
  velocity(featureId: string, current?: Env): Decimal | undefined {
    const v = this.#base.velocity(featureId, current);
    this.used.velocity[featureId] = v === undefined ? null : v.toString();
    return v;
  }

  firstSeen(pair: string): boolean | undefined {
    const seen = this.#base.firstSeen(pair);
    this.used.firstSeen[pair] = seen ?? null;
    return seen;
  }

  lastSeen(key: string): number | undefined {
    const at = this.#base.lastSeen(key);
    this.used.lastSeen[key] = at === undefined ? null : new Date(at).toISOString();
    return at;
  }
}

/** Where each blacklist looks in a request. Accounts match on either side of the transfer. */
const MATCHED_FIELDS: Record<ListKind, readonly (readonly [string, (r: InstantRequest) => string | null | undefined])[]> = {
  users: [
    ['anonymizedUserData.uniqueId', (r) => r.anonymizedUserData?.uniqueId],
    ['thirdPartyUserData.uniqueId', (r) => r.thirdPartyUserData?.uniqueId],
  ],
  vasReceivers: [['transactionData.vasReceiver', (r) => r.transactionData.vasReceiver]],
  devices: [['device.deviceId', (r) => r.device?.deviceId]],
  accounts: [
    ['transactionData.senderAccount', (r) => r.transactionData.senderAccount],
    ['transactionData.receiverAccount', (r) => r.transactionData.receiverAccount],
    ['counterpartyData.accountNumber', (r) => r.counterpartyData?.accountNumber],
  ],
};

/**
 * Blacklist hits found by the engine itself, independent of the rule files: a blacklisted party is rejected
 * whatever the ruleset says, even if someone edits the blacklist rules away.
 */
export function blacklistHits(lists: ListProvider, input: InstantRequest): FeaturesUsed['blacklistHits'] {
  const hits: FeaturesUsed['blacklistHits'] = [];
  for (const list of Object.keys(MATCHED_FIELDS) as ListKind[]) {
    for (const [field, read] of MATCHED_FIELDS[list]) {
      const value = read(input);
      if (value && lists.has(LISTS[list].ruleList, value, undefined)) hits.push({ list, field, value });
    }
  }
  return hits;
}
