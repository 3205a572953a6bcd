import type { Engine } from '../../src/engine.js';
import { runBacktest } from '../../src/monitoring/backtest.js';
import type { RuleSources } from '../../src/rules/index.js';
// A quiet transaction (no default rule fires on it) and helpers to vary it.
export const baseTx = {
  transactionData: {
    reference: 'TX-0001',
    amount: 25000,
    type: 'debit',
    currency: 'NGN',
    balanceBefore: 400000,
    transactionDate: '2026-01-01T10:15:00.000Z',
    channel: 'bank transfer',
    narration: 'school fees',
    senderAccount: '0123456789',
    receiverAccount: '9876543210',
    isExternalPayment: false,
    status: true,
    refund: false,
    isCheque: false,
    isInternalAccount: true,
    isStaffAccount: false,
    isDormantAccount: false,
    email: 'ada.obi@example.com',
    sessionId: 'SESSION-0001',
  },
  device: { deviceId: 'dev-ada-1', manufacturer: 'Samsung', name: 'Galaxy A14', osName: 'Android', osVersion: '13' },
  anonymizedUserData: {
    uniqueId: 'user-ada',
    email: 'ada.obi@example.com',
    accountType: 'savings',
    businessCategory: 'retail',
    state: 'Lagos',
    city: 'Ikeja',
    country: 'NG',
    isPhoneNumberVerified: true,
    isBanned: false,
    isIdentityVerified: true,
    dateJoined: '2021-03-01T09:00:00.000Z',
    age: 34,
  },
  thirdPartyUserData: { uniqueId: 'tp-1', cardPan: '539983******1234', email: 'ada.obi@example.com' },
  location: { latitude: '6.6018', longitude: '3.3515', country: 'NG' },
  screeningData: { senderName: 'Ada Obi', receiverName: 'Chinedu Okeke' },
  limits: { dailyLimit: 10000000, overdraftLimit: 0, individualTransactionLimit: 5000000 },
  beneficiary: { isRegisteredBeneficiary: true, isNewBeneficiary: false },
  ipAddress: '102.89.1.10',
};

export type Tx = typeof baseTx;
type Patch = { [K in keyof Tx]?: (Partial<Tx[K]> & Record<string, unknown>) | Record<string, unknown> | null } & Record<string, unknown>;

/** The base transaction with each group's fields patched (a null group removes it). */
export function tx(reference: string, patch: Patch = {}): Record<string, unknown> {
  const out: Record<string, unknown> = structuredClone(baseTx);
  (out.transactionData as Record<string, unknown>).reference = reference;
  for (const [group, fields] of Object.entries(patch)) {
    if (fields === null) delete out[group];
    else if (typeof fields === 'object') out[group] = { ...(out[group] as object), ...fields };
    else out[group] = fields;
  }
  return out;
}

/** A backtest of `sources` over all the default business's decisions in the log, run in this thread. */
export const backtestHere = (engine: Engine, dataDir: string, sources: RuleSources, samplesPerTransition?: number) =>
  runBacktest(engine.store, engine.db, {
    businessId: 'default',
    sources,
    window: {},
    upTo: engine.store.notifiedPosition,
    samplesPerTransition,
    dataDir,
  });
