import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import { ConflictError, NotFoundError } from '../errors.js';
import { newId } from '../ids.js';
import type { EventStore } from '../store/index.js';
import { userStream, type UserData } from './events.js';
import type { UsersTable, UserTables } from './projection.js';
import { readPage } from '../projections/index.js';

/** A user as other records embed them (case assignee, comment author, log actor). */
export interface UserRef {
  _id: string;
  firstName: string;
  lastName: string;
}

export interface User extends UserRef {
  email: string;
  role: string;
  createdAt: string;
}

export interface Actor {
  businessId: string;
  userId?: string;
  requestId?: string;
}

const toUser = (r: UsersTable): User => ({
  _id: r.user_id,
  firstName: r.first_name,
  lastName: r.last_name,
  email: r.email,
  role: r.role,
  createdAt: r.created_at,
});

export class UserService {
  readonly #db: Kysely<UserTables>;
  constructor(
    db: Kysely<any>,
    private readonly store: EventStore,
    private readonly clock: Clock,
  ) {
    this.#db = db;
  }

  async create(actor: Actor, input: Omit<UserData, 'userId'>): Promise<User> {
    const email = input.email.toLowerCase();
    const taken = await this.#db
      .selectFrom('users')
      .select('user_id')
      .where('business_id', '=', actor.businessId)
      .where('email', '=', email)
      .executeTakeFirst();
    if (taken) throw new ConflictError(`a user with email ${email} already exists`);
    const userId = newId(this.clock.now());
    await this.store.append(userStream(actor.businessId, userId), [{ type: 'UserCreated', data: { ...input, email, userId } }], {
      expectedVersion: 'no_stream',
      metadata: { businessId: actor.businessId, actor: actor.userId ?? 'api', requestId: actor.requestId },
    });
    return this.get(actor.businessId, userId);
  }

  async list(businessId: string, page: { page: number; limit: number }): Promise<{ users: User[]; total: number }> {
    const base = this.#db.selectFrom('users').where('business_id', '=', businessId);
    const { rows, total: found } = await readPage(base.selectAll().orderBy('created_at').orderBy('user_id'), base, page);
    return { users: rows.map(toUser), total: found };
  }

  async get(businessId: string, userId: string): Promise<User> {
    const user = await this.find(businessId, userId);
    if (!user) throw new NotFoundError('User not found');
    return user;
  }

  async find(businessId: string, userId: string): Promise<User | undefined> {
    const row = await this.#db
      .selectFrom('users')
      .selectAll()
      .where('business_id', '=', businessId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row && toUser(row);
  }

  async findByEmail(businessId: string, email: string): Promise<User | undefined> {
    const row = await this.#db
      .selectFrom('users')
      .selectAll()
      .where('business_id', '=', businessId)
      .where('email', '=', email.trim().toLowerCase())
      .executeTakeFirst();
    return row && toUser(row);
  }

  /** The embedded form other records show, or undefined for an unknown id. */
  async ref(businessId: string, userId: string | undefined): Promise<UserRef | undefined> {
    if (!userId) return undefined;
    const user = await this.find(businessId, userId);
    return user && { _id: user._id, firstName: user.firstName, lastName: user.lastName };
  }
}
