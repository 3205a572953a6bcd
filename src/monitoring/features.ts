// The feature context of one decision: the rules runtime's context over this business's lists, velocity
// windows and history, wrapped so that every feature the rules consult is recorded with its value. Rules
// short-circuit, so what is recorded is exactly what the decision depended on.
import type { Decimal } from 'decimal.js';
import { createTransactionContext, type CompiledRuleset, type FeatureContext, type HistoryStore, type ListProvider, type Providers, type VelocityStore } from '../rules/index.js';
import { LISTS, type FeaturesUsed, type ListKind } from './events.js';
import type { InstantRequest } from './request-schema.js';

export interface FeatureSources extends Providers {
  readonly ruleset: CompiledRuleset;
  readonly lists: ListProvider;
  readonly velocity: VelocityStore;
  readonly history: HistoryStore;
}

export function recordingContext(sources: FeatureSources, input: InstantRequest, now: number): { ctx: FeatureContext; used: FeaturesUsed } {
  const base = createTransactionContext({ ...sources, input, now });
  // List keys embed request values, so each is a new property name: on a plain object every one would add a
  // hidden-class transition that V8 keeps forever; a prototype-less object is a dictionary from the start.
  const lists: FeaturesUsed['lists'] = Object.create(null);
  const used: FeaturesUsed = { velocity: {}, lists, firstSeen: {}, lastSeen: {}, blacklistHits: blacklistHits(sources.lists, input) };
  const ctx: FeatureContext = {
    now,
    inList(list, value) {
      const hit = base.inList(list, value);
      used.lists[`${list}:${value}`] = hit;
      return hit;
    },
    // The evaluation's own Env is passed on, so the window filters reuse its converted fields.
    velocity(featureId, current) {
      const v: Decimal | undefined = base.velocity(featureId, current);
      used.velocity[featureId] = v === undefined ? null : v.toString();
      return v;
    },
    firstSeen(pair) {
      const seen = base.firstSeen(pair);
      used.firstSeen[pair] = seen ?? null;
      return seen;
    },
    lastSeen(key) {
      const at = base.lastSeen(key);
      used.lastSeen[key] = at === undefined ? null : new Date(at).toISOString();
      return at;
    },
    screeningScore: base.screeningScore,
    ipCountry: base.ipCountry,
  };
  return { ctx, used };
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
