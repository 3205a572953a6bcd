import { type DestinationStream, pino, type Logger } from 'pino';

export type { Logger };

/** Lines go to stdout unless another destination is given (the CLI's go to stderr: its stdout is the result). */
export function createLogger(level = process.env.LOG_LEVEL ?? 'info', destination?: DestinationStream): Logger {
  return pino({ level, base: { service: 'compliance-engine' }, timestamp: pino.stdTimeFunctions.isoTime }, destination);
}

/**
 * Lines on stderr at LOG_LEVEL (default warn): for the CLI, whose stdout is its result, and for the engine used as a
 * library without a logger, whose host owns stdout. Warnings and errors stay visible; routine lines wait to be asked for.
 */
export const stderrLogger = (): Logger => createLogger(process.env.LOG_LEVEL ?? 'warn', pino.destination({ fd: 2, sync: true }));
