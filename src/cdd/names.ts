import type { CustomerDoc } from './types.js';

interface Named {
  firstName?: string | null;
  middleName?: string | null;
  lastName?: string | null;
}

/** "First Middle Last", skipping what is absent: the name screened and shown on requests. */
export function personName(p: Named): string {
  return [p.firstName, p.middleName, p.lastName].filter((s) => s && s.trim() !== '').join(' ');
}

export function customerName(c: CustomerDoc): string {
  return c.type === 'corporate' ? (c.businessName ?? '') : personName(c);
}
