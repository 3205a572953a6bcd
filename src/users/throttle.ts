import { LRUCache } from 'lru-cache';

/**
 * The sign-in throttle, without a lock-out switch. After a few failures in a row, each further failure makes the next
 * attempt wait twice as long (1 s, 2 s, 4 s … up to a cap); an attempt inside the wait is refused unchecked and does
 * not count. Nothing locks for good, and the waits apply to strangers only: the account's own known browser passes
 * (SignInService), and an admin's unlock resets them. Pure, so the policy is testable without a clock.
 */
export interface ThrottlePolicy {
  /** Failures in a row that cost nothing. */
  free: number;
  firstWaitMs: number;
  maxWaitMs: number;
}

/** Per account: three free failures, then 1 s doubling up to 15 minutes (an account takes at most ~100 guesses a day). */
export const ACCOUNT_THROTTLE: ThrottlePolicy = { free: 3, firstWaitMs: 1000, maxWaitMs: 15 * 60 * 1000 };
/**
 * Per client address, across emails: twenty free failures, then 1 s doubling up to a minute. Mild on purpose: behind
 * a proxy every person shares its address.
 */
export const ADDRESS_THROTTLE: ThrottlePolicy = { free: 20, firstWaitMs: 1000, maxWaitMs: 60 * 1000 };

export interface FailureState {
  failures: number;
  /** No attempt is checked before this instant (ISO), or null. */
  lockedUntil: string | null;
}

export function isThrottled(state: FailureState, now: Date): boolean {
  return state.lockedUntil !== null && state.lockedUntil > now.toISOString();
}

/** How long the attempt after the n-th failure in a row waits. */
export function waitAfter(failures: number, policy: ThrottlePolicy): number {
  if (failures <= policy.free) return 0;
  return Math.min(policy.maxWaitMs, policy.firstWaitMs * 2 ** Math.min(30, failures - policy.free - 1));
}

/** The state after one more failure. */
export function afterFailure(state: FailureState, now: Date, policy: ThrottlePolicy): FailureState {
  const failures = state.failures + 1;
  const wait = waitAfter(failures, policy);
  return { failures, lockedUntil: wait > 0 ? new Date(now.getTime() + wait).toISOString() : null };
}

/** The per-address half, in memory: an address's failures do not outlive the process, nor a quiet day. */
export class AddressThrottle {
  readonly #states = new LRUCache<string, FailureState>({ max: 100_000, ttl: 24 * 60 * 60 * 1000 });

  throttled(address: string | undefined, now: Date): boolean {
    const state = address === undefined ? undefined : this.#states.get(address);
    return state !== undefined && isThrottled(state, now);
  }

  failed(address: string | undefined, now: Date): void {
    if (address === undefined) return;
    this.#states.set(address, afterFailure(this.#states.get(address) ?? { failures: 0, lockedUntil: null }, now, ADDRESS_THROTTLE));
  }

  succeeded(address: string | undefined): void {
    if (address !== undefined) this.#states.delete(address);
  }
}
