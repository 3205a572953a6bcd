/**
 * The sign-in throttle: from the third failure in a row each answer waits longer, and the fifth locks the account
 * for fifteen minutes. A success resets the count. Pure, so the policy is testable without a clock.
 */
export const SLOW_AFTER = 2;
export const LOCK_AFTER = 5;
export const LOCK_MS = 15 * 60 * 1000;
const STEP_MS = 400;
const MAX_DELAY_MS = 2000;

export interface FailureState {
  failures: number;
  lockedUntil: string | null;
}

export function isLocked(state: FailureState, now: Date): boolean {
  return state.lockedUntil !== null && state.lockedUntil > now.toISOString();
}

/** The state after one more failure. A lock that has run out starts the count again. */
export function afterFailure(state: FailureState, now: Date): FailureState {
  const expired = state.lockedUntil !== null && state.lockedUntil <= now.toISOString();
  const failures = (expired ? 0 : state.failures) + 1;
  return { failures, lockedUntil: failures >= LOCK_AFTER ? new Date(now.getTime() + LOCK_MS).toISOString() : null };
}

/** How long the answer to a failed attempt waits. */
export function delayAfter(failures: number): number {
  return failures <= SLOW_AFTER ? 0 : Math.min(MAX_DELAY_MS, (failures - SLOW_AFTER) * STEP_MS);
}
