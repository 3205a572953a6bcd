import type { Context } from 'hono';
import type { User } from '../users/index.js';
import type { ConsoleEnv } from './env.js';

/** The people of the signed-in person's business (a console's staff: one page holds them all). */
export async function peopleOf(c: Context<ConsoleEnv>): Promise<User[]> {
  return (await c.var.engine.users.list(c.var.session.businessId, { page: 1, limit: 500 })).users;
}
