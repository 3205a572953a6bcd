/**
 * Delays before each retry, after the first attempt: the Standard Webhooks schedule, shortened at the tail.
 * Eight attempts in all, spread over about two days.
 */
export const RETRY_DELAYS_MS = [5e3, 5 * 60e3, 30 * 60e3, 2 * 3600e3, 5 * 3600e3, 10 * 3600e3, 24 * 3600e3] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
const MAX_RETRY_AFTER_MS = 24 * 3600e3;

/**
 * Delay before the next attempt after `attempt` failed, or null when none is left. Jitter of ±20% keeps
 * many deliveries failing together (a receiver outage) from all retrying in the same second. A receiver's
 * Retry-After is honoured as a floor, capped at a day.
 */
export function retryDelayMs(attempt: number, random: number, retryAfterMs: number | null): number | null {
  const base = RETRY_DELAYS_MS[attempt - 1];
  if (base === undefined) return null;
  const jittered = Math.round(base * (0.8 + 0.4 * random));
  return Math.max(jittered, Math.min(retryAfterMs ?? 0, MAX_RETRY_AFTER_MS));
}

/** `Retry-After` is either a number of seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now: Date): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
}
