import type { Context } from 'hono';
import type { Gated, Party } from '../approvals/index.js';
import type { ConsoleEnv } from './env.js';

/** The signed-in person as a maker or checker of four-eyes requests. */
export const personOf = (c: Context<ConsoleEnv>): Party => {
  const { user } = c.var.session;
  return { kind: 'user', id: user._id, name: `${user.firstName} ${user.lastName}`.trim() };
};

/** After a gated change: back to `done` when it was made, to the pending request when it waits for a second person. */
export const afterGate = (c: Context<ConsoleEnv>, gated: Gated<unknown>, done: string) =>
  c.redirect(gated.pending ? `/console/approvals/${gated.pending.request_id}` : done, 303);
