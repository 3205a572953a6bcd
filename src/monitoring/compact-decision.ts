// How a TransactionDecided is stored from schema version 3 on: the names every decision repeats (velocity feature
// ids, the request fields it lacked, the lists it looked up) as numbers into a fixed table, and what the event holds
// elsewhere, or what is empty, left out. From version 4 on, that compact form with its keys numbered too
// (compact-keys.ts), request included.
// The table is part of the code rather than of the log: every reader of the log (this thread, the store's writer
// thread, backtests, other nodes) decodes an event by itself, with nothing to look up first. Names not in it are
// stored as text, so a ruleset's own features still round-trip, only longer.
import type { Reason } from '../rules/index.js';
import { decodeNumbered, encodeNumbered, type Numbered } from '../store/numbered-keys.js';
import { DECISION_KEYS } from './compact-keys.js';
import type { Decision, FeaturesUsed, TransactionDecidedData } from './events.js';

/**
 * The names a stored decision refers to by position (its index here). Entries are only ever appended: an entry
 * changed or moved would make every stored decision that refers to it read as another name. Today's entries are
 * the bundled ruleset's velocity features, the request fields its rules read, and the lists the engine keeps.
 */
export const KNOWN_NAMES: readonly string[] = [
  'sum(transactionData.amount by senderAccount over 1 day)',
  'count(by user over 1 day where transactionData.amount between 4500000 and 4999999.99)',
  'count(by user over 10 minutes)',
  'count(by user over 1 hour)',
  'count(by device over 1 hour)',
  'sum(transactionData.amount by user over 1 hour)',
  'count(by receiver over 1 hour)',
  'distinct(transactionData.senderAccount by receiver over 1 day)',
  'distinct(transactionData.receiverAccount by user over 1 hour)',
  'count(by vasReceiver over 10 minutes)',
  'distinct(anonymizedUserData.uniqueId by ip over 1 hour)',
  'distinct(anonymizedUserData.uniqueId by device over 1 day)',
  'anonymizedUserData.age',
  'anonymizedUserData.businessCategory',
  'anonymizedUserData.country',
  'anonymizedUserData.dateJoined',
  'anonymizedUserData.isBanned',
  'anonymizedUserData.isIdentityVerified',
  'anonymizedUserData.isPhoneNumberVerified',
  'anonymizedUserData.pepStatus',
  'anonymizedUserData.uniqueId',
  'anonymizedUserData.userRisk',
  'beneficiary.isNewBeneficiary',
  'counterpartyData.bankCountry',
  'counterpartyData.country',
  'counterpartyData.name',
  'device.deviceId',
  'ipAddress',
  'limits.dailyLimit',
  'limits.individualTransactionLimit',
  'limits.overdraftLimit',
  'location.country',
  'screeningData.receiverName',
  'transactionData.accountCurrency',
  'transactionData.amount',
  'transactionData.balanceBefore',
  'transactionData.currency',
  'transactionData.exchangeRate',
  'transactionData.isDormantAccount',
  'transactionData.isExternalPayment',
  'transactionData.isStaffAccount',
  'transactionData.narration',
  'transactionData.receiverAccount',
  'transactionData.senderAccount',
  'transactionData.transactionDate',
  'transactionData.vasReceiver',
  'blacklist.users',
  'blacklist.vasReceivers',
  'blacklist.devices',
  'blacklist.accounts',
  'knownDevices',
];

/**
 * Reasons a stored decision refers to by index, appended to as KNOWN_NAMES is: the rules compiler's reason when no
 * rule fired (NO_RULE_FIRED), written out because the store's writer thread decodes decisions without loading the
 * rules compiler. Should that reason change, decisions stored before still read as what they said.
 */
export const KNOWN_REASONS: readonly Reason[] = [{ code: 'OK', message: 'No rule fired', severity: 'low' }];

const INDEX: ReadonlyMap<string, number> = new Map(KNOWN_NAMES.map((name, i) => [name, i]));

/** A name as stored: its index in KNOWN_NAMES, or its text when it is not there. */
type NameRef = number | string;

const ref = (name: string): NameRef => INDEX.get(name) ?? name;

function nameOf(stored: NameRef): string {
  if (typeof stored === 'string') return stored;
  const name = KNOWN_NAMES[stored];
  if (name === undefined) throw new Error(`a stored decision refers to name ${stored}, which this engine does not know`);
  return name;
}

/** The stored form of a decision: the answer less its transaction id (the event's own) and less a reason of none. */
interface StoredDecision {
  riskScore: string;
  action: Decision['action'];
  /** Absent when no rule fired (null). */
  ruleResult?: Decision['ruleResult'];
  /** The id of the fired rule whose reason it is, when one is; an index into KNOWN_REASONS; or the reason itself. */
  reason: Reason | string | number;
  /** missingFeatures, by name reference. */
  missing?: NameRef[];
}

/**
 * The stored form of a TransactionDecided's data at schema version 3. Left out: `reference` (the request's own),
 * and `caseId`, `firstSeen`, `lastSeen` and `blacklistHits` when null or empty.
 */
export interface StoredDecided extends Omit<TransactionDecidedData, 'reference' | 'features' | 'decision' | 'caseId'> {
  features: {
    /** Name and value in turn, in the order the rules consulted them. */
    velocity: (NameRef | string | null)[];
    /** Each lookup as list, value and answer in turn (list by reference), or as its whole key and answer. */
    lists: (NameRef | boolean)[];
    firstSeen?: FeaturesUsed['firstSeen'];
    lastSeen?: FeaturesUsed['lastSeen'];
    screening: FeaturesUsed['screening'];
    ipCountries: FeaturesUsed['ipCountries'];
    blacklistHits?: FeaturesUsed['blacklistHits'];
  };
  decision: StoredDecision;
  caseId?: string;
}

/** The lists lookups are recorded under, `list:value`, and how far the list's name goes with its colon. */
const LIST_PREFIXES = ['blacklist.users', 'blacklist.vasReceivers', 'blacklist.devices', 'blacklist.accounts', 'knownDevices'].map(
  (list) => ({ prefix: `${list}:`, index: INDEX.get(list)! }),
);

function encodeLists(lists: FeaturesUsed['lists']): (NameRef | boolean)[] {
  const stored: (NameRef | boolean)[] = [];
  for (const key in lists) {
    const known = LIST_PREFIXES.find((l) => key.startsWith(l.prefix));
    if (known) stored.push(known.index, key.slice(known.prefix.length), lists[key]!);
    else stored.push(key, lists[key]!);
  }
  return stored;
}

function decodeLists(stored: readonly (NameRef | boolean)[]): FeaturesUsed['lists'] {
  const lists: FeaturesUsed['lists'] = {};
  for (let i = 0; i < stored.length; ) {
    const first = stored[i]!;
    if (typeof first === 'number') {
      lists[`${nameOf(first)}:${stored[i + 1] as string}`] = stored[i + 2] as boolean;
      i += 3;
    } else {
      lists[first as string] = stored[i + 1] as boolean;
      i += 2;
    }
  }
  return lists;
}

const isEmpty = (o: object) => {
  for (const _ in o) return false;
  return true;
};

/** `caseId`: the case the decision's alert went to, known only when its writes are built. */
const sameReason = (a: Reason, b: Reason) => a.code === b.code && a.message === b.message && a.severity === b.severity;

/** The id of the first fired rule whose reason is the decision's. */
const firedWithReason = (decision: Decision): string | undefined =>
  decision.ruleResult?.find((r) => sameReason(r.reason, decision.reason))?.id;

function storedReason(decision: Decision): StoredDecision['reason'] {
  const known = KNOWN_REASONS.findIndex((r) => sameReason(r, decision.reason));
  return known >= 0 ? known : (firedWithReason(decision) ?? decision.reason);
}

function reasonOf(decision: StoredDecision): Reason {
  const { reason } = decision;
  if (typeof reason === 'number') {
    const known = KNOWN_REASONS[reason];
    if (!known) throw new Error(`a stored decision refers to reason ${reason}, which this engine does not know`);
    return { ...known };
  }
  if (typeof reason !== 'string') return reason;
  const fired = decision.ruleResult?.find((r) => r.id === reason);
  if (!fired) throw new Error(`a stored decision gives the reason of rule ${reason}, which it does not list as fired`);
  return { ...fired.reason };
}

/** The decision as stored at version 4: its compact form with its keys numbered. */
export const encodeDecided = (data: TransactionDecidedData, caseId: string | null): Numbered =>
  encodeNumbered(DECISION_KEYS, compactDecided(data, caseId));

/** The decision's compact form, as version 3 stores it. */
export function compactDecided(data: TransactionDecidedData, caseId: string | null): StoredDecided {
  const { features, decision } = data;
  const velocity: (NameRef | string | null)[] = [];
  for (const id in features.velocity) velocity.push(ref(id), features.velocity[id]!);
  const stored: StoredDecision = { riskScore: decision.riskScore, action: decision.action, reason: storedReason(decision) };
  if (decision.ruleResult !== null) stored.ruleResult = decision.ruleResult;
  if (decision.missingFeatures) stored.missing = decision.missingFeatures.map(ref);
  const storedFeatures: StoredDecided['features'] = {
    velocity,
    lists: encodeLists(features.lists),
    screening: features.screening,
    ipCountries: features.ipCountries,
  };
  if (!isEmpty(features.firstSeen)) storedFeatures.firstSeen = features.firstSeen;
  if (!isEmpty(features.lastSeen)) storedFeatures.lastSeen = features.lastSeen;
  if (features.blacklistHits.length > 0) storedFeatures.blacklistHits = features.blacklistHits;
  const decided: StoredDecided = {
    transactionId: data.transactionId,
    request: data.request,
    decidedAt: data.decidedAt,
    rulesetVersion: data.rulesetVersion,
    features: storedFeatures,
    decision: stored,
  };
  if (data.requestHash !== undefined) decided.requestHash = data.requestHash;
  if (caseId !== null) decided.caseId = caseId;
  return decided;
}

/**
 * The decision in the shape every reader knows, its fields in the order the pipeline builds them, from version 4's
 * numbered form or version 3's compact one. Data appended in that shape at either version (by a tool, or a test
 * building its own events) reads as it is.
 */
export function decodeDecided(data: Numbered | StoredDecided | TransactionDecidedData): TransactionDecidedData {
  const stored = Array.isArray(data) ? (decodeNumbered(data) as unknown as StoredDecided) : data;
  if (!Array.isArray(stored.features.velocity)) return stored as TransactionDecidedData;
  const { features, decision } = stored as StoredDecided;
  const velocity: Record<string, string | null> = {};
  for (let i = 0; i < features.velocity.length; i += 2) {
    velocity[nameOf(features.velocity[i] as NameRef)] = features.velocity[i + 1] as string | null;
  }
  const decided: Decision = {
    transactionId: stored.transactionId,
    riskScore: decision.riskScore,
    action: decision.action,
    ruleResult: decision.ruleResult ?? null,
    reason: reasonOf(decision),
  };
  if (decision.missing !== undefined) decided.missingFeatures = decision.missing.map(nameOf);
  return {
    transactionId: stored.transactionId,
    reference: (stored.request as { transactionData: { reference: string } }).transactionData.reference,
    ...(stored.requestHash === undefined ? {} : { requestHash: stored.requestHash }),
    request: stored.request,
    decidedAt: stored.decidedAt,
    rulesetVersion: stored.rulesetVersion,
    features: {
      velocity,
      lists: decodeLists(features.lists),
      firstSeen: features.firstSeen ?? {},
      lastSeen: features.lastSeen ?? {},
      screening: features.screening,
      ipCountries: features.ipCountries,
      blacklistHits: features.blacklistHits ?? [],
    },
    decision: decided,
    caseId: stored.caseId ?? null,
  };
}
