import { ValidationError } from '../errors.js';

/**
 * What a business id may hold. Stream ids join the business id and client-chosen ids with '-' (`case-${businessId}-
 * ${caseId}`), so a business id holding '-' could name another business's stream: business 'acme' with case
 * 'x-1' and business 'acme-x' with case '1' would both write `case-acme-x-1`. Without '-' in business ids, the
 * business part of every stream id ends at its first '-' after the prefix, and no two businesses share a stream.
 * The stream ids themselves keep their shape, so every existing log replays unchanged.
 */
export const BUSINESS_ID = /^[A-Za-z0-9_.]{1,64}$/;

export function checkBusinessId(businessId: string, field = 'businessId'): void {
  if (!BUSINESS_ID.test(businessId))
    throw new ValidationError(
      `${field} must be 1 to 64 letters, digits, '_' or '.' (no '-', which separates the parts of stream ids), got ${JSON.stringify(businessId.slice(0, 80))}`,
      field,
    );
}

/**
 * Pairs of existing business ids whose stream ids can collide: 'acme' and 'acme-x' (made before business ids were
 * checked). Each pair is reported once, the shorter id first.
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
