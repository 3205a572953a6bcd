import { formatVerifyReport, verifyReplay } from '../projections/index.js';
import type { Command } from './context.js';
import { parseArgs } from 'node:util';
import { withLog } from './context.js';

/** `replay --verify` checks without touching live data; `replay --rebuild` rewrites the read models from the log. */
export const replay: Command = async (argv, io) => {
  const { values } = parseArgs({ args: argv, options: { verify: { type: 'boolean' }, rebuild: { type: 'boolean' } }, strict: true });
  if (!values.verify && !values.rebuild) {
    io.err('replay: pass --verify (compare read models with the log) or --rebuild (rewrite them from the log)');
    return 2;
  }
  return withLog(async (log) => {
    if (values.rebuild) {
      await log.projections.rebuild(log.db, log.store);
      io.out('rebuilt every read model from the log');
    }
    if (!values.verify) return 0;
    const report = await verifyReplay(log.db, log.store, log.projections);
    io.out(formatVerifyReport(report));
    return report.ok ? 0 : 1;
  });
};
