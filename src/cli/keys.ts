import type { Command } from './context.js';
import { parseArgs } from 'node:util';
import { withEngine } from './context.js';

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
  const issued = await withEngine((e) => e.auth.issue({ name: values.name!, businessId: values.business, userId: values.user }));
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

export const keysList: Command = async (_argv, io) => {
  const keys = await withEngine((e) => e.auth.list());
  io.out(JSON.stringify(keys, null, 2));
  return 0;
};

export const keysRevoke: Command = async (argv, io) => {
  const { positionals } = parseArgs({ args: argv, options: {}, allowPositionals: true, strict: true });
  const key = positionals[0];
  if (!key) {
    io.err('keys revoke: the API key to revoke is required');
    return 2;
  }
  await withEngine((e) => e.auth.revoke(key));
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
  webhookSecret: await withEngine((e) => e.auth.rotateWebhookSecret(businessId)),
}));

// The way to a bootstrap key's secret, which start-up registers without printing it.
export const webhookSecretShow = forBusiness('show', async (businessId) => ({
  webhookSecrets: await withEngine((e) => e.auth.webhookSecrets(businessId)),
}));
