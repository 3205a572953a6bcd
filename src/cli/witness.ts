import { generateKeyPairSync } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { serve } from '@hono/node-server';
import { parsePrivateKey } from '../audit/signing-key.js';
import { cosigner, parseVkey } from '../audit/note.js';
import { systemClock } from '../clock.js';
import { writeDurably } from '../durable-file.js';
import { witnessApp } from '../witness/server.js';
import { WitnessState } from '../witness/state.js';
import { Witness } from '../witness/witness.js';
import type { Command } from './context.js';

/** `witness new-key --name NAME --out FILE`: a witness key (Ed25519, PKCS#8 PEM, 0600); prints its verifier key. */
export const witnessNewKey: Command = async (argv, io) => {
  const { values } = parseArgs({ args: argv, options: { name: { type: 'string' }, out: { type: 'string' } }, strict: true });
  if (!values.name || !values.out) {
    io.err('witness new-key: pass --name NAME (a schema-less URL, e.g. witness.auditor.example/w1) and --out FILE');
    return 2;
  }
  const { privateKey } = generateKeyPairSync('ed25519');
  const named = cosigner(values.name, privateKey);
  await writeDurably(resolve(values.out), privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
  io.out(named.verifier.vkey);
  return 0;
};

/**
 * `witness serve`: a C2SP tlog-witness for the logs given by their verifier keys, on its own port, remembering the
 * latest checkpoint it cosigned of each in the state file. Runs until SIGTERM or SIGINT.
 */
export const witnessServe: Command = async (argv, io) => {
  const { values } = parseArgs({
    args: argv,
    options: {
      name: { type: 'string' },
      key: { type: 'string' },
      state: { type: 'string' },
      log: { type: 'string', multiple: true },
      port: { type: 'string', default: '8090' },
    },
    strict: true,
  });
  const port = Number(values.port);
  if (!values.name || !values.key || !values.state || !values.log?.length || !Number.isInteger(port) || port < 0 || port > 65535) {
    io.err('witness serve: pass --name NAME --key FILE --state FILE --log LOG_VKEY [--log LOG_VKEY…] [--port PORT]');
    return 2;
  }
  const logs = values.log.map((vkey) => parseVkey(vkey));
  const witness = new Witness({
    name: values.name,
    privateKey: parsePrivateKey(await readFile(values.key, 'utf8'), values.key),
    logs,
    state: await WitnessState.open(resolve(values.state)),
    clock: systemClock,
  });
  const server = serve({ fetch: witnessApp(witness).fetch, port }, (info) => {
    io.err(`witness ${witness.vkey} listening on port ${info.port} for ${logs.map((l) => l.name).join(', ')}`);
  });
  await new Promise<void>((done) => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => done());
  });
  await new Promise<void>((done) => server.close(() => done()));
  return 0;
};
