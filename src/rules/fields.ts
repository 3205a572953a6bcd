// The transaction schema: every field of POST /api/v1/transaction-monitoring/instant, basic and extended
// variants together (fields of the other variant are simply missing at run time).
import { DAY_MS, type FieldType, type Schema } from './schema.js';

const group = (prefix: string, fields: Record<string, FieldType>): Record<string, FieldType> =>
  Object.fromEntries(Object.entries(fields).map(([k, v]) => [`${prefix}.${k}`, v]));

const strings = (...names: string[]): Record<string, FieldType> => Object.fromEntries(names.map((n) => [n, 'string']));
const booleans = (...names: string[]): Record<string, FieldType> => Object.fromEntries(names.map((n) => [n, 'boolean']));

export const TRANSACTION_FIELDS: Record<string, FieldType> = {
  ...group('transactionData', {
    ...strings('reference', 'type', 'currency', 'channel', 'narration', 'senderAccount', 'receiverAccount'),
    ...strings('email', 'vasReceiver', 'vasProvider', 'sessionId', 'accountCurrency', 'transactionScheme', 'signatory'),
    ...booleans('isExternalPayment', 'status', 'refund', 'isCheque', 'isInternalAccount', 'isStaffAccount', 'isDormantAccount'),
    amount: 'decimal',
    balanceBefore: 'decimal',
    accountCurrencyBalanceBefore: 'decimal',
    exchangeRate: 'decimal',
    usdExchangeRate: 'decimal',
    transactionDate: 'timestamp',
  }),
  ...group('device', strings('deviceId', 'manufacturer', 'name', 'osName', 'osVersion')),
  ...group('anonymizedUserData', {
    ...strings('uniqueId', 'email', 'accountType', 'businessCategory', 'state', 'city', 'country'),
    ...strings(
      'phone',
      'occupation',
      'gender',
      'bankCode',
      'bankName',
      'name',
      'iban',
      'userRisk',
      'sortCode',
      'bankCountry',
      'dob',
      'sow',
    ),
    ...booleans('isPhoneNumberVerified', 'isBanned', 'isIdentityVerified', 'pepStatus'),
    dateJoined: 'timestamp',
    age: 'integer',
    identityNumber: 'decimal',
  }),
  ...group('counterpartyData', {
    ...strings('accountNumber', 'country', 'accountType', 'bankCode', 'name', 'iban', 'sortCode', 'bankCountry', 'bankName', 'email'),
    identityNumber: 'decimal',
  }),
  ...group('thirdPartyUserData', strings('uniqueId', 'cardPan', 'email')),
  ...group('location', strings('latitude', 'longitude', 'country')),
  ...group('screeningData', strings('senderName', 'receiverName')),
  ...group('limits', { dailyLimit: 'decimal', overdraftLimit: 'decimal', individualTransactionLimit: 'decimal' }),
  ...group('beneficiary', booleans('isRegisteredBeneficiary', 'isNewBeneficiary')),
  ipAddress: 'string',
};

const USER = 'anonymizedUserData.uniqueId';
const SENDER = 'transactionData.senderAccount';

export const transactionSchema: Schema = {
  name: 'transaction',
  fields: TRANSACTION_FIELDS,
  engineLists: {
    'blacklist.users': {},
    'blacklist.vasReceivers': {},
    'blacklist.devices': {},
    'blacklist.accounts': {},
    knownDevices: { scope: USER },
  },
  velocityKeys: {
    user: USER,
    senderAccount: SENDER,
    device: 'device.deviceId',
    receiver: 'transactionData.receiverAccount',
    vasReceiver: 'transactionData.vasReceiver',
    ip: 'ipAddress',
  },
  firstSeenPairs: {
    device: [USER, 'device.deviceId'],
    receiver: [SENDER, 'transactionData.receiverAccount'],
    vasReceiver: [USER, 'transactionData.vasReceiver'],
  },
  contextFeatures: new Set(['clock', 'history', 'screening', 'geo']),
  actions: [
    { name: 'approved', code: 1 },
    { name: 'review', code: 2 },
    { name: 'rejected', code: 3 },
  ],
  maxWindowMs: 31 * DAY_MS,
  // West Africa Time, no daylight saving.
  utcOffsetMinutes: 60,
};
