// How a decision is stored inside its TransactionDecided: each object, at every depth, as an array of its keys and
// values in turn, a key the stored decision or its request knows as its number in a fixed table. The keys are two
// thirds of a request's JSON text and a third of the rest of a decision's; as numbers they take one or two digits.
// A general compressor (deflate with a dictionary of these keys) would store less, but costs a decision more CPU
// than the rest of its serialising, and leaves the stored text unreadable to a person or to SQL.

/**
 * The keys of a stored decision (compact-decision.ts) and of its request, at every depth, by position: the request
 * schema's first, then the decision's own that the request's do not already hold. Entries are only ever appended:
 * an entry changed or moved would make every stored decision that refers to it read with another key. A key not in
 * it is stored as its text.
 */
export const STORED_KEYS: readonly string[] = [
  'transactionData',
  'reference',
  'amount',
  'type',
  'currency',
  'balanceBefore',
  'transactionDate',
  'channel',
  'narration',
  'senderAccount',
  'receiverAccount',
  'isExternalPayment',
  'status',
  'refund',
  'isCheque',
  'isInternalAccount',
  'isStaffAccount',
  'isDormantAccount',
  'email',
  'vasReceiver',
  'vasProvider',
  'sessionId',
  'accountCurrency',
  'accountCurrencyBalanceBefore',
  'transactionScheme',
  'exchangeRate',
  'usdExchangeRate',
  'signatory',
  'device',
  'deviceId',
  'manufacturer',
  'model',
  'name',
  'osName',
  'osVersion',
  'anonymizedUserData',
  'uniqueId',
  'accountType',
  'businessCategory',
  'state',
  'city',
  'country',
  'isPhoneNumberVerified',
  'isBanned',
  'isIdentityVerified',
  'dateJoined',
  'age',
  'identityNumber',
  'phone',
  'occupation',
  'gender',
  'bankCode',
  'bankName',
  'iban',
  'userRisk',
  'sortCode',
  'bankCountry',
  'dob',
  'sow',
  'pepStatus',
  'counterpartyData',
  'accountNumber',
  'thirdPartyUserData',
  'cardPan',
  'location',
  'latitude',
  'longitude',
  'screeningData',
  'senderName',
  'receiverName',
  'limits',
  'dailyLimit',
  'overdraftLimit',
  'individualTransactionLimit',
  'beneficiary',
  'isRegisteredBeneficiary',
  'isNewBeneficiary',
  'ipAddress',
  'transactionId',
  'request',
  'decidedAt',
  'rulesetVersion',
  'features',
  'velocity',
  'lists',
  'firstSeen',
  'lastSeen',
  'screening',
  'ipCountries',
  'blacklistHits',
  'decision',
  'riskScore',
  'action',
  'result',
  'code',
  'ruleResult',
  'reason',
  'missing',
  'caseId',
  'requestHash',
  'id',
  'title',
  'score',
  'message',
  'severity',
  'forced',
  'observed',
  'test',
  'holds',
  'values',
  'list',
  'field',
  'value',
];

const INDEX: ReadonlyMap<string, number> = new Map(STORED_KEYS.map((key, i) => [key, i]));

/** An object as stored: key and value in turn. An array is stored with null first, which no key is. */
export type Keyed = unknown[];

function encodeValue(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const stored: unknown[] = [null];
    for (const item of value) stored.push(item === undefined ? null : encodeValue(item));
    return stored;
  }
  return encodeKeyed(value);
}

/** An object as stored, reading back as JSON.stringify would have written it (undefined members left out). */
export function encodeKeyed(object: object): Keyed {
  const stored: unknown[] = [];
  for (const key in object) {
    const value = (object as Record<string, unknown>)[key];
    if (value === undefined) continue;
    stored.push(INDEX.get(key) ?? key, encodeValue(value));
  }
  return stored;
}

function decodeValue(stored: unknown): unknown {
  if (!Array.isArray(stored)) return stored;
  if (stored[0] !== null) return decodeKeyed(stored);
  const items: unknown[] = [];
  for (let i = 1; i < stored.length; i++) items.push(decodeValue(stored[i]));
  return items;
}

export function decodeKeyed(stored: Keyed): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (let i = 0; i < stored.length; i += 2) {
    const ref = stored[i] as number | string;
    const key = typeof ref === 'number' ? STORED_KEYS[ref] : ref;
    if (key === undefined) throw new Error(`a stored decision refers to key ${ref}, which this engine does not know`);
    const value = decodeValue(stored[i + 1]);
    // An own member named __proto__, as JSON.parse makes it, rather than a new prototype.
    if (key === '__proto__') Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
    else object[key] = value;
  }
  return object;
}
