// One goAML <transaction> from a decided transaction and the records of its parties.
import { Decimal } from 'decimal.js';
import type { CustomerDoc } from '../cdd/index.js';
import type { ReportingSettings } from './events.js';
import { codeFor, type Fiu } from './fiu.js';
import { accountElsewhere, accountMyClient, countryCode, type Gaps, localSqlDate } from './parties.js';
import type { ReportedTransaction } from './ports.js';
import { leaf, node, type XmlNode } from './xml.js';

/** The request fields a report reads; every one may be absent (the instant request requires only the reference). */
export interface TransactionFields {
  transactionData: {
    reference: string;
    amount?: number | null;
    type?: string | null;
    currency?: string | null;
    transactionDate?: string | null;
    channel?: string | null;
    narration?: string | null;
    senderAccount?: string | null;
    receiverAccount?: string | null;
    exchangeRate?: number | null;
  };
  anonymizedUserData?: { uniqueId?: string | null; name?: string | null; accountType?: string | null; bankCode?: string | null } | null;
  counterpartyData?: {
    accountNumber?: string | null;
    name?: string | null;
    bankCode?: string | null;
    country?: string | null;
    bankCountry?: string | null;
  } | null;
}

export const fieldsOf = (tx: ReportedTransaction) => tx.request as TransactionFields;

/** Money coming in to the customer; anything else is the customer paying out. */
export const isIncoming = (type: string | null | undefined) => /credit|inflow|deposit|receiv/i.test(type ?? '');

/** The customer's account and the counterparty's, by direction. */
export function accountsOf(f: TransactionFields): { customer: string | undefined; counterparty: string | undefined } {
  const t = f.transactionData;
  const incoming = isIncoming(t.type);
  const counterparty = f.counterpartyData?.accountNumber ?? (incoming ? t.senderAccount : t.receiverAccount) ?? undefined;
  return { customer: (incoming ? t.receiverAccount : t.senderAccount) ?? undefined, counterparty };
}

/**
 * The amount in the local currency: as sent when the transaction is in it (or names no currency), converted by
 * its exchangeRate otherwise; undefined when there is no amount or no rate to convert by.
 */
export function localAmount(f: TransactionFields, localCurrency: string): Decimal | undefined {
  const { amount, currency, exchangeRate } = f.transactionData;
  if (amount === null || amount === undefined) return undefined;
  if (!currency || currency.toUpperCase() === localCurrency.toUpperCase()) return new Decimal(amount);
  return exchangeRate ? new Decimal(amount).times(exchangeRate) : undefined;
}

export interface Parties {
  /** The business's customer in the transaction (found by uniqueId or account), when it has a record. */
  customer: CustomerDoc | undefined;
  /** The counterparty, when it is a customer of the business too. */
  counterparty: CustomerDoc | undefined;
}

export function transactionNode(tx: ReportedTransaction, parties: Parties, settings: ReportingSettings, fiu: Fiu, gaps: Gaps): XmlNode {
  const f = fieldsOf(tx);
  const t = f.transactionData;
  const incoming = isIncoming(t.type);
  const accounts = accountsOf(f);
  const currency = t.currency ?? settings.currency;
  const amount = localAmount(f, settings.currency);
  const customerName = f.anonymizedUserData?.name ?? parties.customer?.uniqueId ?? '';
  const counterpartyName = f.counterpartyData?.name ?? '';
  const funds = codeFor(fiu.fundsTypes, t.type);
  // A transaction in another currency keeps its own amount and rate beside the local amount, on both sides.
  const foreign =
    currency.toUpperCase() !== settings.currency.toUpperCase() && t.amount !== null && t.amount !== undefined
      ? [
          leaf('foreign_currency_code', currency.toUpperCase()),
          leaf('foreign_amount', new Decimal(t.amount).toFixed()),
          t.exchangeRate ? leaf('foreign_exchange_rate', new Decimal(t.exchangeRate).toFixed()) : undefined,
        ]
      : undefined;

  const side = (dir: 'from' | 'to', isCustomer: boolean): XmlNode => {
    const g = gaps.at(`t_${dir}`);
    const record = isCustomer ? parties.customer : parties.counterparty;
    const account = isCustomer ? accounts.customer : accounts.counterparty;
    const other = isCustomer ? counterpartyName : customerName;
    const mine = record !== undefined && account !== undefined;
    const body: XmlNode[] = [leaf(`${dir}_funds_code`, funds)];
    if (foreign) body.push(node(`${dir}_foreign_currency`, foreign));
    if (mine) {
      body.push(
        accountMyClient(`${dir}_account`, record, account, other, currency, settings, fiu, gaps.at(`t_${dir}_my_client.${dir}_account`)),
      );
    } else {
      const who = isCustomer ? `the customer ${f.anonymizedUserData?.uniqueId ?? ''}`.trim() : 'the counterparty';
      if (isCustomer) g.need(`${dir}_account`, undefined, `${who} has no CDD customer record holding account ${account ?? '(none sent)'}`);
      const party = isCustomer
        ? { accountNumber: account, bankCode: settings.institution.code, name: customerName, who }
        : { accountNumber: account, bankCode: f.counterpartyData?.bankCode, name: counterpartyName, who };
      body.push(accountElsewhere(`${dir}_account`, party, g.at(`${dir}_account`)));
    }
    const country =
      mine || isCustomer
        ? settings.institution.country
        : (countryCode(f.counterpartyData?.bankCountry ?? f.counterpartyData?.country) ?? settings.institution.country);
    body.push(leaf(`${dir}_country`, country));
    return node(mine ? `t_${dir}_my_client` : `t_${dir}`, body);
  };

  return node('transaction', [
    leaf('transactionnumber', t.reference.slice(0, 100)),
    leaf('internal_ref_number', tx.transactionId),
    leaf('transaction_location', (t.channel ?? settings.branch).slice(0, 255)),
    leaf('transaction_description', (t.narration ?? t.type ?? '').slice(0, 8000)),
    gaps.need(
      'date_transaction',
      localSqlDate(t.transactionDate ?? tx.decidedAt, settings.utcOffsetMinutes),
      'the transaction has no date',
    ),
    leaf('transmode_code', codeFor(fiu.conductionTypes, t.channel)),
    leaf('transmode_comment', '-'),
    gaps.need(
      'amount_local',
      amount?.toFixed(),
      t.amount === null || t.amount === undefined
        ? 'the transaction has no amount'
        : `the transaction is in ${currency} and has no exchangeRate to ${settings.currency}`,
    ),
    side('from', !incoming),
    side('to', incoming),
  ]);
}
