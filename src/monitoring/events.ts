// The monitoring domain's events. A decision is one event on its own stream, named after a transaction id
// derived from (business, reference): the stream doubles as the idempotency record and the lookup by id, so
// the hot path writes no read-model row at all.
import { sha256Hex } from '../digest.js';
import type { Reason } from '../rules/index.js';
import type { Observation } from '../rules/index.js';
import type { Upcasters } from '../store/index.js';

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
  /** Canonical hash of the request body: a resubmission with another body is refused. */
  requestHash: string;
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
export const MONITORING_EVENT_TYPES: readonly MonitoringEventType[] = ['TransactionDecided', 'BlacklistEntryAdded', 'BlacklistEntryRemoved', 'CustomerDeviceSaved'];

const digest = (...parts: string[]) => sha256Hex(parts.join('\u0000'));

/** 96 bits of a hash of (business, reference): opaque, stable across retries, unguessable across businesses. */
export const transactionIdFor = (businessId: string, reference: string): string => digest('tm-tx', businessId, reference).slice(0, 24);

export const transactionStream = (businessId: string, transactionId: string) => `tm-tx-${businessId}-${transactionId}`;
export const blacklistStream = (businessId: string, list: ListKind, value: string) => `tm-bl-${businessId}-${list}-${digest(value).slice(0, 32)}`;
export const deviceStream = (businessId: string, customerId: string, deviceId: string) =>
  `tm-dev-${businessId}-${digest(customerId, deviceId).slice(0, 32)}`;

/**
 * Older TransactionDecided events read in the current shape. Version 2 added the screening scores and IP countries
 * the rules consulted; a version-1 event did not keep them, so they read as null (unknown), not as empty.
 */
export function registerMonitoringUpcasters(upcasters: Upcasters): Upcasters {
  return upcasters.register('TransactionDecided', 1, (data: TransactionDecidedData) => ({
    ...data,
    features: { ...data.features, screening: null, ipCountries: null },
  }));
}
