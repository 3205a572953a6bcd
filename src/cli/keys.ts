import { parseArgs } from 'node:util';
import { AuthService } from '../auth/index.js';
import { partitionsSetting } from '../config.js';
import { withLog, type Command } from './context.js';

/** The key commands need the API-key service alone (a new business's key records PARTITIONS, as the server's do). */
const withAuth = <T>(work: (auth: AuthService) => Promise<T>): Promise<T> =>
  withLog(({ db, store, clock }) => work(new AuthService(db, store, clock, partitionsSetting(process.env))));

export const keysCreate: Command = async (argv, io) => {
  const { values } = parseArgs({
    args: argv,
    options: { name: { type: 'string' }, business: { type: 'string' }, user: { type: 'string' } },
    strict: true,
  });
  if (!values.name) {
    io.err('keys create: --name NAME is required');
    return 2;
  }
  const issued = await withAuth((auth) => auth.issue({ name: values.name!, businessId: values.business, userId: values.user }));
  io.out(
    JSON.stringify({
      apiKey: issued.apiKey,
      apiSecret: issued.apiSecret,
      webhookSecret: issued.webhookSecret,
      businessId: issued.businessId,
    }),
  );
  return 0;
};

export const keysRevoke: Command = async (argv, io) => {
  const { positionals } = parseArgs({ args: argv, options: {}, allowPositionals: true, strict: true });
  const key = positionals[0];
  if (!key) {
    io.err('keys revoke: the API key to revoke is required');
    return 2;
  }
  await withAuth((auth) => auth.revoke(key));
  io.out(JSON.stringify({ revoked: key }));
  return 0;
};

/** A webhook-secret command: the business it acts on is `--business ID`, required. */
const forBusiness =
  (command: string, run: (businessId: string) => Promise<Record<string, unknown>>): Command =>
  async (argv, io) => {
    const { values } = parseArgs({ args: argv, options: { business: { type: 'string' } }, strict: true });
    if (!values.business) {
      io.err(`webhook-secret ${command}: --business ID is required`);
      return 2;
    }
    io.out(JSON.stringify({ businessId: values.business, ...(await run(values.business)) }));
    return 0;
  };

export const webhookSecretRotate = forBusiness('rotate', async (businessId) => ({
  webhookSecret: await withAuth((auth) => auth.rotateWebhookSecret(businessId)),
}));

// The way to a bootstrap key's secret, which start-up registers without printing it.
export const webhookSecretShow = forBusiness('show', async (businessId) => ({
  webhookSecrets: await withAuth((auth) => auth.webhookSecrets(businessId)),
}));
