// The monitoring domain's events. A decision is one event on a stream of its own, named after its transaction
// id; the references read model (projection.ts) finds it by reference and lets each reference be decided once.
import { sha256Hex } from '../digest.js';
import type { Reason } from '../rules/index.js';
import type { Observation } from '../rules/index.js';
import type { Upcasters } from '../store/index.js';
import { inStreamId } from '../stream-ids.js';
import { decodeDecided } from './compact-decision.js';

/** The four event-sourced blacklists, as their API path names them and as the rule language names them. */
export const LISTS = {
  users: { ruleList: 'blacklist.users', label: 'User' },
  vasReceivers: { ruleList: 'blacklist.vasReceivers', label: 'VAS receiver' },
  devices: { ruleList: 'blacklist.devices', label: 'Device' },
  accounts: { ruleList: 'blacklist.accounts', label: 'Account' },
} as const;
export type ListKind = keyof typeof LISTS;

/** The list of devices a customer saved; scoped by customer id, which matches anonymizedUserData.uniqueId. */
export const KNOWN_DEVICES = 'knownDevices';

export interface DeviceInfo {
  deviceId: string;
  manufacturer?: string | null;
  model?: string | null;
  name?: string | null;
  osName?: string | null;
  osVersion?: string | null;
}

/** One fired rule as the analyst sees it: what fired and the values behind each test it made. */
export interface FiredRuleView {
  id: string;
  title: string;
  score: string;
  reason: Reason;
  forced: string | null;
  observed: readonly Observation[];
}

export interface Decision {
  transactionId: string;
  riskScore: string;
  action: { result: string; code: number };
  ruleResult: FiredRuleView[] | null;
  reason: Reason;
  /** The request fields the rules read that it lacked (absent or null), when any: what the decision could not judge. */
  missingFeatures?: string[];
}

/** What the rules consulted beyond the request itself, recorded so a decision can be explained later. */
export interface FeaturesUsed {
  velocity: Record<string, string | null>;
  lists: Record<string, boolean>;
  firstSeen: Record<string, boolean | null>;
  lastSeen: Record<string, string | null>;
  /**
   * Best screening score (0–100) by `kind:name`, e.g. `sanctions:Jane Doe`: what the lists said at decision time.
   * Null on decisions recorded at schema version 1, which did not keep it.
   */
  screening: Record<string, string> | null;
  /** Country of each IP address looked up (null when geolocation had no answer); null as a whole as above. */
  ipCountries: Record<string, string | null> | null;
  /** Blacklist entries this transaction hits, whatever the rules say. */
  blacklistHits: { list: ListKind; field: string; value: string }[];
}

export interface TransactionDecidedData {
  transactionId: string;
  reference: string;
  /**
   * SHA-256 of the body's canonical JSON, on older decisions only. A resubmission is checked against the stored
   * body itself, which those decisions hold too, so no decision pays for hashing its body.
   */
  requestHash?: string;
  request: unknown;
  decidedAt: string;
  rulesetVersion: string;
  features: FeaturesUsed;
  decision: Decision;
  caseId: string | null;
}

export type MonitoringEvent =
  | { type: 'TransactionDecided'; data: TransactionDecidedData }
  | { type: 'BlacklistEntryAdded'; data: { list: ListKind; value: string } }
  | { type: 'BlacklistEntryRemoved'; data: { list: ListKind; value: string } }
  | { type: 'CustomerDeviceSaved'; data: { customerId: string; device: DeviceInfo } };

export type MonitoringEventType = MonitoringEvent['type'];
export const MONITORING_EVENT_TYPES: readonly MonitoringEventType[] = [
  'TransactionDecided',
  'BlacklistEntryAdded',
  'BlacklistEntryRemoved',
  'CustomerDeviceSaved',
];

/**
 * The business-wide state a decision reads besides its subject's: its blacklists. A decision is appended fenced
 * at the position its state stood at, so that with several nodes none is made from lists that changed before it
 * committed (src/store/fence.ts).
 */
export const CONTROL_EVENT_TYPES: ReadonlySet<MonitoringEventType> = new Set(['BlacklistEntryAdded', 'BlacklistEntryRemoved']);

const digest = (...parts: string[]) => sha256Hex(parts.join('\u0000'));

/**
 * 64 bits of a hash of (business, reference), as 16 hex digits: what the decided filter and the in-flight
 * decisions know a decision by, without the reference itself.
 */
export const referenceKey = (businessId: string, reference: string): string => digest('tm-tx', businessId, reference).slice(0, 16);

/**
 * A new decision's transaction id: the second it was made (8 hex digits), a dash, and its reference key. The time
 * comes first so that decision streams enter the log's (stream_id, stream_version) index at its right edge, where
 * a commit dirties a few pages, instead of one random leaf page per decision that every WAL checkpoint then copies
 * back (SQLite alone, 100,000 decisions logged: checkpoints of 9 ms against 4 ms on this machine). The reference
 * key makes the id self-describing: another process's decision of the same reference is recognised from its
 * stream id alone.
 */
export const newTransactionId = (key: string, at: number): string =>
  `${Math.floor(at / 1000)
    .toString(16)
    .padStart(8, '0')}-${key}`;

/** Either shape of transaction id: 24 hex digits (the oldest decisions), or a second and a reference key. */
export const isTransactionId = (text: string): boolean => /^(?:[0-9a-f]{24}|[0-9a-f]{8}-[0-9a-f]{16})$/.test(text);

export const transactionStream = (businessId: string, transactionId: string) => `tm-tx-${inStreamId(businessId)}-${transactionId}`;

/**
 * The oldest ids are 24 hex digits of the same hash, so their first 16 digits are the reference key; current ones
 * end with it, after the dash 17 characters from the end.
 */
const endsWithTimedId = (text: string): boolean => text.charCodeAt(text.length - 17) === 45; /* - */

/** The reference key of a transaction id, or of the stream named after it (the id ends it). */
export const referenceKeyOf = (transactionIdOrStream: string): string =>
  endsWithTimedId(transactionIdOrStream) ? transactionIdOrStream.slice(-16) : transactionIdOrStream.slice(-24, -8);

/** The transaction id a transaction stream is named after. */
export const transactionIdOf = (streamId: string): string => streamId.slice(endsWithTimedId(streamId) ? -25 : -24);

export const blacklistStream = (businessId: string, list: ListKind, value: string) =>
  `tm-bl-${inStreamId(businessId)}-${list}-${digest(value).slice(0, 32)}`;
export const deviceStream = (businessId: string, customerId: string, deviceId: string) =>
  `tm-dev-${inStreamId(businessId)}-${digest(customerId, deviceId).slice(0, 32)}`;

/**
 * Every TransactionDecided reads in the current shape. Version 2 added the screening scores and IP countries the
 * rules consulted; a version-1 event did not keep them, so they read as null (unknown), not as empty. Version 3 is
 * version 2's shape stored compact (compact-decision.ts), version 4 that with its keys numbered; both decoded when read.
 */
export function registerMonitoringUpcasters(upcasters: Upcasters): Upcasters {
  return upcasters
    .register('TransactionDecided', 1, (data: TransactionDecidedData) => ({
      ...data,
      features: { ...data.features, screening: null, ipCountries: null },
    }))
    .register('TransactionDecided', 3, decodeDecided)
    .registerDecoder('TransactionDecided', 4, decodeDecided);
}
