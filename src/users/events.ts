import { inStreamId } from '../stream-ids.js';

export interface UserData {
  userId: string;
  firstName: string;
  lastName: string;
  email: string;
  role: string;
}

/** The roles of people who sign in to the console. */
export const CONSOLE_ROLES = ['analyst', 'admin', 'auditor'] as const;
export type ConsoleRole = (typeof CONSOLE_ROLES)[number];

/**
 * A user's life: creation, then credentials and sign-ins. Passwords enter the log only as scrypt hashes;
 * sign-in failures are events so that a lock-out is a fact the log can explain.
 */
export type UserEvent =
  | { type: 'UserCreated'; data: UserData }
  | { type: 'UserPasswordSet'; data: { userId: string; hash: string; mustChange: boolean } }
  | { type: 'UserSignInFailed'; data: { userId: string; failures: number; lockedUntil: string | null } }
  | { type: 'UserSignedIn'; data: { userId: string; sessionHash: string; expiresAt: string } }
  | { type: 'UserSignedOut'; data: { userId: string; sessionHash: string; reason: 'sign-out' | 'password-changed' } };

export const userStream = (businessId: string, userId: string) => `user-${inStreamId(businessId)}-${userId}`;
