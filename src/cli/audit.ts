import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { formatAuditReport, parseCheckpoint, type Checkpoint } from '../audit/index.js';
import { ValidationError } from '../errors.js';
import type { Command } from './context.js';
import { withEngine } from './with-engine.js';

/** `audit checkpoint`: a signed tree head of the log as it is now, as JSON for the auditor to keep elsewhere. */
export const auditCheckpoint: Command = async (argv, io) => {
  parseArgs({ args: argv, options: {}, strict: true });
  const checkpoint = await withEngine((e) => e.audit.checkpoint());
  io.out(JSON.stringify(checkpoint, null, 2));
  return 0;
};

/** `audit verify --checkpoint FILE…`: proves the log extends every checkpoint; exit 1 names what does not hold. */
export const auditVerify: Command = async (argv, io) => {
  const { values } = parseArgs({ args: argv, options: { checkpoint: { type: 'string', multiple: true } }, strict: true });
  const files = values.checkpoint ?? [];
  if (files.length === 0) {
    io.err('audit verify: pass --checkpoint FILE (one or more checkpoints printed by `audit checkpoint`)');
    return 2;
  }
  const given: { source: string; checkpoint: Checkpoint }[] = [];
  for (const file of files) {
    try {
      given.push({ source: file, checkpoint: parseCheckpoint(await readFile(file, 'utf8'), file) });
    } catch (error) {
      if (!(error instanceof ValidationError) && (error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      io.err(`audit verify: ${(error as Error).message}`);
      return 2;
    }
  }
  const report = await withEngine((e) => e.audit.verify(given));
  io.out(formatAuditReport(report));
  return report.ok ? 0 : 1;
};

/** `audit rotate-key`: a new signing key in the key file, its public key recorded in the log. */
export const auditRotateKey: Command = async (argv, io) => {
  parseArgs({ args: argv, options: {}, strict: true });
  const activated = await withEngine((e) => e.audit.rotateKey());
  io.out(JSON.stringify(activated, null, 2));
  return 0;
};

/** `audit public-key`: the key tree heads are signed with, and every key the log recorded. */
export const auditPublicKey: Command = async (argv, io) => {
  parseArgs({ args: argv, options: {}, strict: true });
  const keys = await withEngine(async (e) => ({ current: await e.audit.publicKey(), recorded: await e.audit.keys() }));
  io.out(JSON.stringify(keys, null, 2));
  return 0;
};
