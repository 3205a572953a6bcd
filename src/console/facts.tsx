import type { FC } from 'hono/jsx';
import type { TransactionFacts } from '../monitoring/index.js';

// Formatters are costly to build and a page formats hundreds of values: one per currency and per zone, kept.
const amounts = new Map<string, Intl.NumberFormat>();
const times = new Map<string, Intl.DateTimeFormat>();

const amountFormat = (currency: string): Intl.NumberFormat | undefined => {
  let format = amounts.get(currency);
  if (!format) {
    try {
      format = new Intl.NumberFormat('en', { style: 'currency', currency, currencyDisplay: 'code' });
    } catch {
      // Not an ISO 4217 code: the caller shows the number with separators and the code as given.
      return undefined;
    }
    amounts.set(currency, format);
  }
  return format;
};

const plain = new Intl.NumberFormat('en', { maximumFractionDigits: 2 });

/** An amount with separators and its currency (`NGN 600,000.00`); `—` when the request had none. */
export function fmtAmount(amount: number | null, currency: string | null): string {
  if (amount === null) return '—';
  const format = currency ? amountFormat(currency.toUpperCase()) : undefined;
  if (format) return format.format(amount).replace(/\u00a0/g, ' ');
  return currency ? `${plain.format(amount)} ${currency}` : plain.format(amount);
}

/** An instant as `YYYY-MM-DD HH:MM` in the business's zone (the zone is named once, in the column's heading). */
export function fmtTime(iso: string | null | undefined, timeZone: string): string {
  if (!iso) return '—';
  let format = times.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    times.set(timeZone, format);
  }
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const p = Object.fromEntries(format.formatToParts(date).map((part) => [part.type, part.value]));
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}`;
}

/** A person or account with the identifier that tells namesakes apart: `Ada Obi (cust-17)`. */
export const withId = (name: string | null | undefined, id: string) => (name && name !== id ? `${name} (${id})` : id);

/** The counterparty as one line: name, account, bank and country, whichever the request gave. */
export function counterpartyOf(facts: TransactionFacts | undefined): string {
  const other = facts?.counterparty;
  if (!other) return '—';
  const who = other.account ? withId(other.name, other.account) : (other.name ?? '');
  const where = [other.bank, other.country].filter(Boolean).join(', ');
  return where ? `${who} · ${where}` : who;
}

/** The facts' cells of a table row: amount, time, counterparty (with channel). */
export const FactCells: FC<{ facts: TransactionFacts | undefined; timeZone: string }> = ({ facts, timeZone }) => (
  <>
    <td class="num">{facts ? fmtAmount(facts.amount, facts.currency) : '—'}</td>
    <td>{facts ? fmtTime(facts.occurredAt, timeZone) : '—'}</td>
    <td>
      {counterpartyOf(facts)}
      {facts?.channel ? <span class="muted"> · {facts.channel}</span> : null}
    </td>
  </>
);
