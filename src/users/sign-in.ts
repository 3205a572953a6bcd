import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import { NotFoundError, UnauthorizedError, ValidationError } from '../errors.js';
import type { EventStore } from '../store/index.js';
import { CONSOLE_ROLES, type ConsoleRole, type UserEvent, userStream } from './events.js';
import { afterFailure, delayAfter, isLocked } from './lockout.js';
import { hashPassword, oneTimePassword, passwordMatches, passwordProblem } from './passwords.js';
import type { UserTables } from './projection.js';
import type { User } from './service.js';

/** How long a console session lasts from sign-in, whatever its activity. */
export const SESSION_MS = 8 * 60 * 60 * 1000;

/** A signed-in person, as the console sees them on every request. */
export interface Session {
  businessId: string;
  user: User;
  role: ConsoleRole;
  mustChangePassword: boolean;
  sessionHash: string;
  expiresAt: string;
}

export const sessionHash = (token: string) => createHash('sha256').update(token).digest('base64url');

/** Spent on unknown emails so that an answer's timing does not tell which emails exist. */
let decoyHash: Promise<string> | undefined;

const isConsoleRole = (role: string): role is ConsoleRole => (CONSOLE_ROLES as readonly string[]).includes(role);

/**
 * People's passwords and console sessions. Everything is an event on the user's stream (password set, sign-in
 * failed, signed in, signed out); the read model only answers "who is this cookie" quickly.
 */
export class SignInService {
  readonly #db: Kysely<UserTables>;
  readonly #attempts = new Map<string, Promise<unknown>>();
  constructor(
    db: Kysely<any>,
    private readonly store: EventStore,
    private readonly clock: Clock,
    private readonly findUser: (businessId: string, userId: string) => Promise<User | undefined>,
  ) {
    this.#db = db;
  }

  /** Gives the user a one-time password, to be changed at their first sign-in, and returns it. */
  async issueOneTimePassword(businessId: string, userId: string, actor: string): Promise<string> {
    if (!(await this.findUser(businessId, userId))) throw new NotFoundError('User not found');
    const password = oneTimePassword();
    await this.#append(businessId, userId, actor, {
      type: 'UserPasswordSet',
      data: { userId, hash: await hashPassword(password), mustChange: true },
    });
    return password;
  }

  /** Sets a password chosen elsewhere (provisioning by an embedding application); it is not forced to change. */
  async setPassword(businessId: string, userId: string, password: string, actor: string): Promise<void> {
    const user = await this.findUser(businessId, userId);
    if (!user) throw new NotFoundError('User not found');
    const problem = passwordProblem(password, user.email);
    if (problem) throw new ValidationError(problem, 'password');
    await this.#append(businessId, userId, actor, {
      type: 'UserPasswordSet',
      data: { userId, hash: await hashPassword(password), mustChange: false },
    });
  }

  /** The person's own change: the current password must match; every other session of theirs ends. */
  async changePassword(session: Session, current: string, next: string): Promise<void> {
    const { businessId, user } = session;
    const row = await this.#credentials(businessId, user._id);
    if (!row || !(await passwordMatches(current, row.password_hash))) throw new ValidationError('current password is wrong', 'current');
    const problem =
      passwordProblem(next, user.email) ?? (next === current ? 'the new password must differ from the current one' : undefined);
    if (problem) throw new ValidationError(problem, 'password');
    await this.#append(businessId, user._id, user._id, {
      type: 'UserPasswordSet',
      data: { userId: user._id, hash: await hashPassword(next), mustChange: false },
    });
    const others = await this.#db
      .selectFrom('user_sessions')
      .select('session_hash')
      .where('business_id', '=', businessId)
      .where('user_id', '=', user._id)
      .where('ended_at', 'is', null)
      .where('session_hash', '!=', session.sessionHash)
      .execute();
    for (const { session_hash } of others) {
      await this.#append(businessId, user._id, user._id, {
        type: 'UserSignedOut',
        data: { userId: user._id, sessionHash: session_hash, reason: 'password-changed' },
      });
    }
  }

  /**
   * Checks an email and password; on success starts a session and returns its token (for the cookie). Every
   * refusal says the same thing, and a locked account is refused without its password being checked.
   */
  async signIn(email: string, password: string): Promise<{ token: string; session: Session }> {
    // Attempts on one email run one after another, so parallel guesses cannot all read the same failure count.
    const key = email.trim().toLowerCase();
    const previous = this.#attempts.get(key) ?? Promise.resolve();
    const attempt = previous.then(() => this.#signIn(key, password));
    const settled = attempt.catch(() => undefined);
    this.#attempts.set(key, settled);
    void settled.then(() => {
      if (this.#attempts.get(key) === settled) this.#attempts.delete(key);
    });
    return attempt;
  }

  async #signIn(email: string, password: string): Promise<{ token: string; session: Session }> {
    const now = this.clock.now();
    const candidates = await this.#db
      .selectFrom('users')
      .innerJoin('user_credentials', (j) =>
        j.onRef('user_credentials.business_id', '=', 'users.business_id').onRef('user_credentials.user_id', '=', 'users.user_id'),
      )
      .select(['users.business_id', 'users.user_id', 'users.role', 'password_hash', 'failures', 'locked_until'])
      .where('users.email', '=', email)
      .execute();
    if (candidates.length === 0) {
      decoyHash ??= hashPassword('decoy password never used');
      await passwordMatches(password, await decoyHash);
      throw new UnauthorizedError('Email or password is wrong, or the account is locked for a while');
    }
    let slowest = 0;
    for (const c of candidates) {
      if (isLocked({ failures: c.failures, lockedUntil: c.locked_until }, now)) continue;
      if (isConsoleRole(c.role) && (await passwordMatches(password, c.password_hash))) {
        const token = randomBytes(32).toString('base64url');
        const hash = sessionHash(token);
        const expiresAt = new Date(now.getTime() + SESSION_MS).toISOString();
        await this.#append(c.business_id, c.user_id, c.user_id, {
          type: 'UserSignedIn',
          data: { userId: c.user_id, sessionHash: hash, expiresAt },
        });
        const session = await this.session(token);
        if (!session) throw new Error('session not found right after sign-in');
        return { token, session };
      }
      const next = afterFailure({ failures: c.failures, lockedUntil: c.locked_until }, now);
      await this.#append(c.business_id, c.user_id, c.user_id, { type: 'UserSignInFailed', data: { userId: c.user_id, ...next } });
      slowest = Math.max(slowest, delayAfter(next.failures));
    }
    if (slowest > 0) await sleep(slowest);
    throw new UnauthorizedError('Email or password is wrong, or the account is locked for a while');
  }

  /** The live session of a cookie's token, or undefined when it is unknown, ended or expired. */
  async session(token: string | undefined): Promise<Session | undefined> {
    if (!token) return undefined;
    const hash = sessionHash(token);
    const row = await this.#db
      .selectFrom('user_sessions')
      .selectAll()
      .where('session_hash', '=', hash)
      .where('ended_at', 'is', null)
      .executeTakeFirst();
    if (!row || row.expires_at <= this.clock.now().toISOString()) return undefined;
    const user = await this.findUser(row.business_id, row.user_id);
    if (!user || !isConsoleRole(user.role)) return undefined;
    const credentials = await this.#credentials(row.business_id, row.user_id);
    return {
      businessId: row.business_id,
      user,
      role: user.role,
      mustChangePassword: credentials?.must_change === 1,
      sessionHash: hash,
      expiresAt: row.expires_at,
    };
  }

  async signOut(session: Session): Promise<void> {
    await this.#append(session.businessId, session.user._id, session.user._id, {
      type: 'UserSignedOut',
      data: { userId: session.user._id, sessionHash: session.sessionHash, reason: 'sign-out' },
    });
  }

  #credentials(businessId: string, userId: string) {
    return this.#db
      .selectFrom('user_credentials')
      .selectAll()
      .where('business_id', '=', businessId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
  }

  async #append(businessId: string, userId: string, actor: string, event: UserEvent): Promise<void> {
    await this.store.append(userStream(businessId, userId), [event], { expectedVersion: 'stream_exists', metadata: { businessId, actor } });
  }
}
