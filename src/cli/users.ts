import { parseArgs } from 'node:util';
import { AuthService } from '../auth/index.js';
import { CONSOLE_ROLES, SignInService, UserService } from '../users/index.js';
import { withLog, type Command } from './context.js';
import type { OpenLog } from '../open-log.js';
import type { Clock } from '../clock.js';

const DEFAULT_BUSINESS = 'default';

/**
 * The business a command without --business means: the one whose API keys the log holds (a fresh install's
 * bootstrap key made one, so its first admin sees the data sent with that key), else `default`. With live keys of
 * several businesses there is no telling: the caller must choose.
 */
async function businessOf(given: string | undefined): Promise<{ businessId: string } | { choices: string[] }> {
  if (given) return { businessId: given };
  const keys = await withLog(({ db, store, clock }: OpenLog & { clock: Clock }) => new AuthService(db, store, clock).list());
  const businesses = [...new Set(keys.filter((k) => !k.revoked).map((k) => k.businessId))].sort();
  if (businesses.length === 0) return { businessId: DEFAULT_BUSINESS };
  if (businesses.length === 1) return { businessId: businesses[0]! };
  return { choices: businesses };
}

/** The people and their sign-in over the log alone: no rules, lists or index to load for a one-shot command. */
const withPeople = <T>(work: (people: { users: UserService; signIn: SignInService }) => Promise<T>) =>
  withLog(({ db, store, clock }: OpenLog & { clock: Clock }) => {
    const users = new UserService(db, store, clock);
    const signIn = new SignInService(db, store, clock, (businessId, userId) => users.find(businessId, userId));
    return work({ users, signIn });
  });

/** A person who signs in to the console, with a one-time password printed once and changed at first sign-in. */
export const usersCreate: Command = async (argv, io) => {
  const { values } = parseArgs({
    args: argv,
    options: {
      email: { type: 'string' },
      role: { type: 'string' },
      business: { type: 'string' },
      'first-name': { type: 'string' },
      'last-name': { type: 'string' },
    },
    strict: true,
  });
  if (!values.email || !values.role) {
    io.err('users create: --email EMAIL and --role ROLE are required');
    return 2;
  }
  if (!(CONSOLE_ROLES as readonly string[]).includes(values.role)) {
    io.err(`users create: --role must be one of: ${CONSOLE_ROLES.join(', ')}`);
    return 2;
  }
  const business = await businessOf(values.business);
  if ('choices' in business) {
    io.err(`users create: the log has API keys of several businesses (${business.choices.join(', ')}): choose one with --business`);
    return 2;
  }
  const { businessId } = business;
  const email = values.email;
  const [name] = email.split('@');
  const result = await withPeople(async (e) => {
    const user = await e.users.create(
      { businessId, userId: 'cli' },
      { email, role: values.role!, firstName: values['first-name'] ?? name ?? email, lastName: values['last-name'] ?? '' },
    );
    const password = await e.signIn.issueOneTimePassword(businessId, user._id, 'cli');
    return { userId: user._id, businessId, email: user.email, role: user.role, oneTimePassword: password };
  });
  io.out(JSON.stringify(result));
  io.err('The one-time password is shown only now; it must be changed at the first sign-in.');
  return 0;
};

/** A new one-time password for a person who lost theirs (their sessions stay until they sign in with it). */
export const usersResetPassword: Command = async (argv, io) => {
  const { values } = parseArgs({ args: argv, options: { email: { type: 'string' }, business: { type: 'string' } }, strict: true });
  if (!values.email) {
    io.err('users reset-password: --email EMAIL is required');
    return 2;
  }
  const business = await businessOf(values.business);
  if ('choices' in business) {
    io.err(`users reset-password: the log has API keys of several businesses (${business.choices.join(', ')}): choose one with --business`);
    return 2;
  }
  const { businessId } = business;
  const result = await withPeople(async (e) => {
    const user = await e.users.findByEmail(businessId, values.email!);
    if (!user) return undefined;
    return { userId: user._id, oneTimePassword: await e.signIn.issueOneTimePassword(businessId, user._id, 'cli') };
  });
  if (!result) {
    io.err(`users reset-password: no user ${values.email} in business ${businessId}`);
    return 2;
  }
  io.out(JSON.stringify(result));
  return 0;
};
