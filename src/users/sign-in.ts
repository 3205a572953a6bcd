import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import { NotFoundError, UnauthorizedError, ValidationError } from '../errors.js';
import type { EventStore } from '../store/index.js';
import { CONSOLE_ROLES, type ConsoleRole, type UserEvent, userStream } from './events.js';
import { ACCOUNT_THROTTLE, AddressThrottle, afterFailure, isThrottled } from './throttle.js';
import { hashPassword, oneTimePassword, passwordMatches, passwordProblem, SCRYPT_N_FLOOR } from './passwords.js';
import type { UserTables } from './projection.js';
import type { User } from './service.js';

/** How long a console session lasts from sign-in, whatever its activity. */
export const SESSION_MS = 8 * 60 * 60 * 1000;
/** How long a session lasts without a request, unless configured otherwise (CONSOLE_IDLE_MINUTES). */
export const IDLE_MS = 30 * 60 * 1000;
/** How far the idle deadline must move before a request records it. */
const ACTIVITY_STEP_MS = 60 * 1000;

/** Where an attempt comes from: the client's address, and the device cookie of a browser that signed in before. */
export interface SignInFrom {
  address?: string;
  device?: string;
}

export interface SignedIn {
  token: string;
  session: Session;
  /** The browser's device token, for its long-lived cookie: the same one when it was already known. */
  device: string;
}

interface KnownDevice {
  businessId: string;
  userId: string;
}

const refusal = () => new UnauthorizedError('Email or password is wrong, or the account waits a while after failed attempts');

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

const isConsoleRole = (role: string): role is ConsoleRole => (CONSOLE_ROLES as readonly string[]).includes(role);

/**
 * People's passwords and console sessions. Everything is an event on the user's stream (password set, sign-in
 * failed, signed in, signed out); the read model only answers "who is this cookie" quickly.
 */
export class SignInService {
  readonly #db: Kysely<UserTables>;
  readonly #attempts = new Map<string, Promise<unknown>>();
  readonly #addresses = new AddressThrottle();
  readonly #touching = new Set<string>();
  /** Spent on unknown emails so that an answer's timing does not tell which emails exist; at this service's cost. */
  #decoyHash: Promise<string> | undefined;
  constructor(
    db: Kysely<any>,
    private readonly store: EventStore,
    private readonly clock: Clock,
    private readonly findUser: (businessId: string, userId: string) => Promise<User | undefined>,
    private readonly idleMs = IDLE_MS,
    /** scrypt's N for new hashes (PASSWORD_SCRYPT_N); a stored hash is checked with its own. */
    private readonly scryptN = SCRYPT_N_FLOOR,
  ) {
    this.#db = db;
  }

  /** Gives the user a one-time password, to be changed at their first sign-in, and returns it. */
  async issueOneTimePassword(businessId: string, userId: string, actor: string): Promise<string> {
    if (!(await this.findUser(businessId, userId))) throw new NotFoundError('User not found');
    const password = oneTimePassword();
    await this.#append(businessId, userId, actor, {
      type: 'UserPasswordSet',
      data: { userId, hash: await hashPassword(password, this.scryptN), mustChange: true },
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
      data: { userId, hash: await hashPassword(password, this.scryptN), mustChange: false },
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
      data: { userId: user._id, hash: await hashPassword(next, this.scryptN), mustChange: false },
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
   * Checks an email and password; on success starts a session and returns its token (for the cookie) and the
   * browser's device token. Every refusal says the same thing after the same work: one scrypt per account the email
   * names (a decoy for an unknown email), whether the account exists, waits or not. An attempt from a browser the
   * account has signed in from before skips both throttles and the queue, so strangers cannot keep its owner out.
   */
  async signIn(email: string, password: string, from: SignInFrom = {}): Promise<SignedIn> {
    const key = email.trim().toLowerCase();
    const known = from.device ? await this.#device(from.device) : undefined;
    if (known) return this.#attempt(key, password, from, known);
    if (this.#addresses.throttled(from.address, this.clock.now())) {
      await this.#decoy(password);
      throw refusal();
    }
    // Attempts on one email run one after another, so parallel guesses cannot all read the same failure count.
    const previous = this.#attempts.get(key) ?? Promise.resolve();
    const attempt = previous.then(() => this.#attempt(key, password, from, undefined));
    const settled = attempt.catch(() => undefined);
    this.#attempts.set(key, settled);
    void settled.then(() => {
      if (this.#attempts.get(key) === settled) this.#attempts.delete(key);
    });
    return attempt;
  }

  /** Clears an account's throttle: an admin's answer to a person kept waiting by someone else's guesses. */
  async unlock(businessId: string, userId: string, actor: string): Promise<void> {
    if (!(await this.#credentials(businessId, userId))) throw new NotFoundError('User not found');
    await this.#append(businessId, userId, actor, { type: 'UserSignInUnlocked', data: { userId } });
  }

  /** Until when each person of the business waits before their next sign-in attempt is checked (only those waiting). */
  async throttled(businessId: string): Promise<Map<string, string>> {
    const rows = await this.#db
      .selectFrom('user_credentials')
      .select(['user_id', 'locked_until'])
      .where('business_id', '=', businessId)
      .where('locked_until', '>', this.clock.now().toISOString())
      .execute();
    return new Map(rows.map((r) => [r.user_id, r.locked_until!]));
  }

  async #attempt(email: string, password: string, from: SignInFrom, known: KnownDevice | undefined): Promise<SignedIn> {
    const now = this.clock.now();
    const candidates = await this.#db
      .selectFrom('users')
      .innerJoin('user_credentials', (j) =>
        j.onRef('user_credentials.business_id', '=', 'users.business_id').onRef('user_credentials.user_id', '=', 'users.user_id'),
      )
      .select(['users.business_id', 'users.user_id', 'users.role', 'password_hash', 'failures', 'locked_until'])
      .where('users.email', '=', email)
      .execute();
    if (candidates.length === 0) await this.#decoy(password);
    for (const c of candidates) {
      const trusted = known?.businessId === c.business_id && known.userId === c.user_id;
      const waiting = !trusted && isThrottled({ failures: c.failures, lockedUntil: c.locked_until }, now);
      // Checked even while the account waits, so that a waiting account answers in the time of any other.
      const matches = await passwordMatches(password, c.password_hash);
      if (waiting) continue;
      if (matches && isConsoleRole(c.role)) {
        this.#addresses.succeeded(from.address);
        return this.#start(c.business_id, c.user_id, now, trusted ? from.device! : randomBytes(32).toString('base64url'));
      }
      const next = afterFailure({ failures: c.failures, lockedUntil: c.locked_until }, now, ACCOUNT_THROTTLE);
      await this.#append(c.business_id, c.user_id, c.user_id, { type: 'UserSignInFailed', data: { userId: c.user_id, ...next } });
    }
    if (!known) this.#addresses.failed(from.address, now);
    throw refusal();
  }

  async #start(businessId: string, userId: string, now: Date, device: string): Promise<SignedIn> {
    const token = randomBytes(32).toString('base64url');
    const hash = sessionHash(token);
    await this.#append(businessId, userId, userId, {
      type: 'UserSignedIn',
      data: { userId, sessionHash: hash, expiresAt: this.#deadline(now, now), deviceHash: sessionHash(device) },
    });
    const session = await this.session(token);
    if (!session) throw new Error('session not found right after sign-in');
    return { token, session, device };
  }

  /** A session's idle deadline from activity at `now`: never past eight hours from its start. */
  #deadline(startedAt: Date, now: Date): string {
    return new Date(Math.min(startedAt.getTime() + SESSION_MS, now.getTime() + this.idleMs)).toISOString();
  }

  async #device(token: string): Promise<KnownDevice | undefined> {
    const row = await this.#db
      .selectFrom('user_devices')
      .select(['business_id', 'user_id'])
      .where('device_hash', '=', sessionHash(token))
      .executeTakeFirst();
    return row && { businessId: row.business_id, userId: row.user_id };
  }

  async #decoy(password: string): Promise<void> {
    this.#decoyHash ??= hashPassword('decoy password never used', this.scryptN);
    await passwordMatches(password, await this.#decoyHash);
  }

  /**
   * The live session of a cookie's token, or undefined when it is unknown, ended, idle too long or past eight
   * hours. A request moves the idle deadline on, with an event at most every ACTIVITY_STEP_MS.
   */
  async session(token: string | undefined): Promise<Session | undefined> {
    if (!token) return undefined;
    const hash = sessionHash(token);
    const row = await this.#db
      .selectFrom('user_sessions')
      .selectAll()
      .where('session_hash', '=', hash)
      .where('ended_at', 'is', null)
      .executeTakeFirst();
    const now = this.clock.now();
    if (!row || row.expires_at <= now.toISOString()) return undefined;
    const user = await this.findUser(row.business_id, row.user_id);
    if (!user || !isConsoleRole(user.role)) return undefined;
    let expiresAt = row.expires_at;
    const deadline = this.#deadline(new Date(row.started_at), now);
    if (Date.parse(deadline) - Date.parse(row.expires_at) >= Math.min(ACTIVITY_STEP_MS, this.idleMs / 4) && !this.#touching.has(hash)) {
      this.#touching.add(hash);
      try {
        await this.#append(row.business_id, row.user_id, row.user_id, {
          type: 'UserSessionActive',
          data: { userId: row.user_id, sessionHash: hash, expiresAt: deadline },
        });
        expiresAt = deadline;
      } finally {
        this.#touching.delete(hash);
      }
    }
    const credentials = await this.#credentials(row.business_id, row.user_id);
    return {
      businessId: row.business_id,
      user,
      role: user.role,
      mustChangePassword: credentials?.must_change === 1,
      sessionHash: hash,
      expiresAt,
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
