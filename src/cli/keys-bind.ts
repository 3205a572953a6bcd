import { parseArgs } from 'node:util';
import { AuthService } from '../auth/index.js';
import { UserService } from '../users/index.js';
import { withLog, type Command } from './context.js';

/** Makes a user the actor of everything an API key does from now on (case log entries, comments, assignments). */
export const keysBind: Command = async (argv, io) => {
  const { values } = parseArgs({ args: argv, options: { key: { type: 'string' }, user: { type: 'string' } }, strict: true });
  if (!values.key || !values.user) {
    io.err('keys bind: --key API_KEY and --user USER_ID are required');
    return 2;
  }
  const problem = await withLog(async ({ db, store, clock }) => {
    const auth = new AuthService(db, store, clock);
    const users = new UserService(db, store, clock);
    const key = (await auth.list()).find((k) => k.apiKey === values.key);
    if (!key) return `API key ${values.key} not found`;
    if (!(await users.find(key.businessId, values.user!))) return `user ${values.user} is not a user of business ${key.businessId}`;
    await auth.bindUser(key.apiKey, values.user!, key.businessId);
    return undefined;
  });
  if (problem) {
    io.err(`keys bind: ${problem}`);
    return 2;
  }
  io.out(JSON.stringify({ apiKey: values.key, userId: values.user }));
  return 0;
};
