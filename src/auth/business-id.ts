import { ValidationError } from '../errors.js';

/** What a business id may hold: letters, digits, '_', '.' and '-', as people write them ('my-switch'). */
export const BUSINESS_ID = /^[A-Za-z0-9_.-]{1,64}$/;

export function checkBusinessId(businessId: string, field = 'businessId'): void {
  if (!BUSINESS_ID.test(businessId))
    throw new ValidationError(
      `${field} must be 1 to 64 letters, digits, '_', '.' or '-', got ${JSON.stringify(businessId.slice(0, 80))}`,
      field,
    );
}

/**
 * Pairs of raw business ids whose stream ids can collide: 'acme' and 'acme-x' (made while '-' was written raw in
 * stream ids). Each pair is reported once, the shorter id first.
 */
export function collidingBusinessIds(ids: Iterable<string>): [string, string][] {
  const known = new Set(ids);
  const pairs: [string, string][] = [];
  for (const id of known) {
    for (let dash = id.indexOf('-'); dash > 0; dash = id.indexOf('-', dash + 1)) {
      const prefix = id.slice(0, dash);
      if (known.has(prefix)) pairs.push([prefix, id]);
    }
  }
  return pairs;
}
