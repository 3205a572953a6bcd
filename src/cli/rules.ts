import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { DomainError, ValidationError } from '../errors.js';
import { formatShadow } from '../monitoring/shadow/index.js';
import { formatRulePerformance } from '../monitoring/rule-performance/index.js';
import { formatBacktest, readRuleSources, RuleErrors, rulesCheckCommand, rulesTestCommand } from '../rules/index.js';
import type { CliIo, Command } from './context.js';
import { withEngine } from './with-engine.js';

const print = (io: CliIo, result: { exitCode: number; output: string }): number => {
  (result.exitCode === 0 ? io.out : io.err)(result.output.trimEnd());
  return result.exitCode;
};

/** `rules check [DIR]`: parse and type-check a rules directory (default RULES_DIR). */
export const rulesCheck: Command = async (argv, io) => print(io, await rulesCheckCommand(argv[0] ?? loadConfig().rulesDir));

/** `rules test [DIR]`: run the example cases of every *.test.json next to the rules. */
export const rulesTest: Command = async (argv, io) => print(io, await rulesTestCommand(argv[0] ?? loadConfig().rulesDir));

/** `rules backtest --candidate DIR [--from ISO] [--to ISO] [--business ID]`: one report per business. */
export const rulesBacktest: Command = async (argv, io) => {
  const { values } = parseArgs({
    args: argv,
    options: { candidate: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' }, business: { type: 'string' } },
    strict: true,
  });
  if (!values.candidate) {
    io.err('rules backtest: pass --candidate DIR (a rules directory to compare with the stored decisions)');
    return 2;
  }
  for (const [name, value] of [
    ['from', values.from],
    ['to', values.to],
  ] as const) {
    if (value !== undefined && Number.isNaN(Date.parse(value))) {
      io.err(`rules backtest: --${name} must be an ISO 8601 timestamp`);
      return 2;
    }
  }
  let sources: Awaited<ReturnType<typeof readRuleSources>>;
  try {
    sources = await readRuleSources(values.candidate);
  } catch (e) {
    if (e instanceof RuleErrors) return print(io, { exitCode: 1, output: e.format() });
    throw e;
  }
  return withEngine(async (engine) => {
    const businesses = values.business ? [values.business] : engine.monitoring.businessIds();
    if (businesses.length === 0) io.out('no stored decisions to replay');
    for (const businessId of businesses) {
      const report = await engine.monitoring.backtest(businessId, sources, { from: values.from, to: values.to });
      io.out(`Business ${businessId}\n${formatBacktest(report)}`);
    }
    return 0;
  });
};

/** `rules performance [--from DAY] [--to DAY] [--business ID]`: each rule's figures, one table per business. */
export const rulesPerformance: Command = async (argv, io) => {
  const { values } = parseArgs({
    args: argv,
    options: { from: { type: 'string' }, to: { type: 'string' }, business: { type: 'string' } },
    strict: true,
  });
  return withEngine(async (engine) => {
    const businesses = values.business ? [values.business] : engine.monitoring.businessIds();
    if (businesses.length === 0) io.out('no stored decisions');
    for (const businessId of businesses) {
      try {
        const report = await engine.rulePerformance.report(businessId, { from: values.from, to: values.to });
        io.out(`Business ${businessId}\n${formatRulePerformance(report)}`);
      } catch (e) {
        if (!(e instanceof ValidationError)) throw e;
        io.err(`rules performance: --${e.message}`);
        return 2;
      }
    }
    return 0;
  });
};

/**
 * `rules shadow start|report|stop|publish`: a candidate ruleset in shadow on a business's live decisions. The
 * server runs the shadow (it follows the log); publish makes the candidate the rules directory's rules.
 */
export const rulesShadow: Command = async (argv, io) => {
  const [action, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      business: { type: 'string' },
      candidate: { type: 'string' },
      hours: { type: 'string' },
      'max-decisions': { type: 'string' },
      pair: { type: 'string' },
      page: { type: 'string' },
    },
    strict: true,
  });
  if (!values.business || !['start', 'report', 'stop', 'publish'].includes(action ?? '')) {
    io.err('rules shadow: use start --candidate DIR | report [--pair P] [--page N] | stop | publish, with --business ID');
    return 2;
  }
  const actor = { businessId: values.business, userId: 'cli' };
  let files: Record<string, string> | undefined;
  if (action === 'start') {
    if (!values.candidate) {
      io.err('rules shadow start: pass --candidate DIR (the whole candidate rules directory)');
      return 2;
    }
    try {
      const sources = await readRuleSources(values.candidate);
      files = Object.fromEntries([
        ...sources.files.map((f) => [basename(f.path), f.text]),
        ...sources.lists.map((l) => [`lists/${basename(l.path)}`, l.text]),
      ]);
    } catch (e) {
      if (e instanceof RuleErrors) return print(io, { exitCode: 1, output: e.format() });
      throw e;
    }
  }
  return withEngine(async (engine) => {
    try {
      const shadows = engine.shadows;
      const report =
        action === 'start'
          ? await shadows.deploy(actor, {
              files: files!,
              ...(values.hours === undefined ? {} : { hours: Number(values.hours) }),
              ...(values['max-decisions'] === undefined ? {} : { maxDecisions: Number(values['max-decisions']) }),
            })
          : action === 'stop'
            ? await shadows.stop(actor)
            : action === 'publish'
              ? await shadows.publish(actor)
              : await shadows.report(values.business!, { pair: values.pair, page: values.page === undefined ? 1 : Number(values.page) });
      io.out(formatShadow(report));
      return 0;
    } catch (e) {
      if (!(e instanceof DomainError)) throw e;
      io.err(`rules shadow ${action}: ${e.message}`);
      return e instanceof ValidationError ? 2 : 1;
    }
  });
};
