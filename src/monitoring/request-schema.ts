// The instant-decision body (compliance-service-interface.md, POST /transaction-monitoring/instant), basic
// and extended variants in one schema: the extended fields are optional. Only transactionData.reference is
// required (the one field the interface reports as required); every other field is optional but typed, null
// counts as absent, and unknown fields are refused so that nothing a client sends is silently dropped.
import { z } from 'zod';
import { precompiled } from '../fast-schema.js';

const text = z.string().max(2000).nullish();
const id = z.string().max(256).nullish();
const num = z.number().finite().nullish();
const bool = z.boolean().nullish();
const timestamp = z.iso.datetime({ offset: true }).nullish();

export const TransactionDataSchema = z.strictObject({
  reference: z.string().min(1).max(128),
  amount: num,
  type: text,
  currency: text,
  balanceBefore: num,
  transactionDate: timestamp,
  channel: text,
  narration: text,
  senderAccount: id,
  receiverAccount: id,
  isExternalPayment: bool,
  status: bool,
  refund: bool,
  isCheque: bool,
  isInternalAccount: bool,
  isStaffAccount: bool,
  isDormantAccount: bool,
  email: text,
  vasReceiver: id,
  vasProvider: text,
  sessionId: id,
  accountCurrency: text,
  accountCurrencyBalanceBefore: num,
  transactionScheme: text,
  exchangeRate: num,
  usdExchangeRate: num,
  signatory: text,
});

export const DeviceSchema = z.strictObject({
  deviceId: id,
  manufacturer: text,
  model: text,
  name: text,
  osName: text,
  osVersion: text,
});

export const AnonymizedUserSchema = z.strictObject({
  uniqueId: id,
  email: text,
  accountType: text,
  businessCategory: text,
  state: text,
  city: text,
  country: text,
  isPhoneNumberVerified: bool,
  isBanned: bool,
  isIdentityVerified: bool,
  dateJoined: timestamp,
  age: z.number().int().nullish(),
  identityNumber: num,
  phone: text,
  occupation: text,
  gender: text,
  bankCode: text,
  bankName: text,
  name: text,
  iban: text,
  userRisk: text,
  sortCode: text,
  bankCountry: text,
  dob: text,
  sow: text,
  pepStatus: bool,
});

export const CounterpartySchema = z.strictObject({
  accountNumber: id,
  country: text,
  accountType: text,
  bankCode: text,
  name: text,
  iban: text,
  sortCode: text,
  bankCountry: text,
  bankName: text,
  email: text,
  identityNumber: num,
});

export const InstantRequestSchema = z.strictObject({
  transactionData: TransactionDataSchema,
  device: DeviceSchema.nullish(),
  anonymizedUserData: AnonymizedUserSchema.nullish(),
  counterpartyData: CounterpartySchema.nullish(),
  thirdPartyUserData: z.strictObject({ uniqueId: id, cardPan: text, email: text }).nullish(),
  location: z.strictObject({ latitude: text, longitude: text, country: text }).nullish(),
  screeningData: z.strictObject({ senderName: text, receiverName: text }).nullish(),
  limits: z.strictObject({ dailyLimit: num, overdraftLimit: num, individualTransactionLimit: num }).nullish(),
  beneficiary: z.strictObject({ isRegisteredBeneficiary: bool, isNewBeneficiary: bool }).nullish(),
  ipAddress: z.string().max(64).nullish(),
});

export type InstantRequest = z.infer<typeof InstantRequestSchema>;

/** `InstantRequestSchema.safeParse`, with the valid case answered without zod (the instant path's hot spot). */
export const parseInstantRequest = precompiled(InstantRequestSchema);

const required = (max: number) => z.string().trim().min(1).max(max);

export const SaveDeviceSchema = z.strictObject({
  customerId: required(256),
  device: z.strictObject({
    deviceId: required(256),
    manufacturer: text,
    model: text,
    name: text,
    osName: text,
    osVersion: text,
  }),
});
export type SaveDeviceInput = z.infer<typeof SaveDeviceSchema>;

export const BlacklistBodies = {
  users: z.strictObject({ userId: required(256) }),
  vasReceivers: z.strictObject({ receiver: required(256) }),
  devices: z.strictObject({ deviceId: required(256) }),
  accounts: z.strictObject({ accountNumber: required(64) }),
} as const;
