/**
 * Business ids made with '-' while stream ids held them raw. Their streams keep the raw id, so their logs read as
 * they were written; the engine registers them at start (see rawStreamBusinessIds in AuthService). Module state,
 * because stream ids are built by plain functions everywhere; it only grows, and only with such old ids.
 */
const rawInStreamIds = new Set<string>();

export function keepRawInStreamIds(businessIds: Iterable<string>): void {
  for (const id of businessIds) rawInStreamIds.add(id);
}

/**
 * The business id as it appears in stream ids. Stream ids join the business id and client-chosen ids with '-'
 * (`case-${business}-${caseId}`), so a raw '-' would let business 'acme' with case 'x-1' and business 'acme-x' with
 * case '1' share `case-acme-x-1`. Each '-' of a business id is written '%2D' ('%' is no business id character), so
 * the business part ends at its first '-'. An id without '-' (every id accepted before '-' was) is unchanged, so
 * existing stream ids and their hash chains stay as stored.
 */
export const inStreamId = (businessId: string): string =>
  businessId.includes('-') && !rawInStreamIds.has(businessId) ? businessId.replaceAll('-', '%2D') : businessId;
