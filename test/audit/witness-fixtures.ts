import { execFile } from 'node:child_process';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { serve } from '@hono/node-server';
import { noteSigner, parseVkey } from '../../src/audit/note.js';
import { parseWitnessPolicy, type WitnessPolicy } from '../../src/audit/witnessing.js';
import { systemClock } from '../../src/clock.js';
import { witnessApp } from '../../src/witness/server.js';
import { WitnessState } from '../../src/witness/state.js';
import { Witness } from '../../src/witness/witness.js';

export const ORIGIN = 'compliance.test/audit-log';

/** A log signing key the test holds, so that the witness can be told the log's verifier key before the engine starts. */
export function logKey(): { pem: string; vkey: string; key: KeyObject } {
  const { privateKey } = generateKeyPairSync('ed25519');
  return {
    key: privateKey,
    pem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    vkey: noteSigner(ORIGIN, privateKey).verifier.vkey,
  };
}

export interface RunningWitness {
  url: string;
  vkey: string;
  witness: Witness;
  /** AUDIT_WITNESSES for an engine that asks this witness alone, quorum 1. */
  policy: WitnessPolicy;
  close(): Promise<void>;
}

/** A witness on a port of its own, over a state file in `dir`, that knows the log by `logVkey`. */
export async function startWitness(
  dir: string,
  logVkey: string,
  privateKey = generateKeyPairSync('ed25519').privateKey,
): Promise<RunningWitness> {
  const witness = new Witness({
    name: 'witness.test/w1',
    privateKey,
    logs: [parseVkey(logVkey)],
    state: await WitnessState.open(join(dir, 'witness-state.json')),
    clock: systemClock,
  });
  const server = serve({ fetch: witnessApp(witness).fetch, port: 0, hostname: '127.0.0.1' });
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    vkey: witness.vkey,
    witness,
    policy: parseWitnessPolicy(`${url} ${witness.vkey}`, '1'),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** examples/verify-proof.mjs with `args`: its exit code and everything it printed. */
export const runVerifier = (...args: string[]) =>
  promisify(execFile)(process.execPath, ['examples/verify-proof.mjs', ...args]).then(
    (r) => ({ code: 0, out: r.stdout + r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
  );
