import { parseArgs } from 'node:util';
import { DomainError } from '../errors.js';
import type { Command } from './context.js';
import { withEngine } from './with-engine.js';

/** Drafts the threshold report of a day for one business and prints it as JSON. */
export const reportsThreshold: Command = async (argv, io) => {
  const { values } = parseArgs({ args: argv, options: { date: { type: 'string' }, business: { type: 'string' } }, strict: true });
  if (!values.date || !/^\d{4}-\d{2}-\d{2}$/.test(values.date)) {
    io.err('reports threshold: pass --date YYYY-MM-DD (the day whose transactions at or above the thresholds are reported)');
    return 2;
  }
  const businessId = values.business ?? 'default';
  return withEngine(async (engine) => {
    try {
      const report = await engine.reports.draftThreshold({ businessId, userId: 'cli' }, { date: values.date! });
      io.out(JSON.stringify(report, null, 2));
      return 0;
    } catch (error) {
      // A refusal (nothing to report, reporting not configured, a batch that already stands) is the answer, not a crash.
      if (!(error instanceof DomainError)) throw error;
      io.err(`reports threshold: ${error.message}`);
      return 1;
    }
  });
};
