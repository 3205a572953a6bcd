import { type DestinationStream, pino, type Logger } from 'pino';

export type { Logger };

/** Lines go to stdout unless another destination is given (the CLI's go to stderr: its stdout is the result). */
export function createLogger(level = process.env.LOG_LEVEL ?? 'info', destination?: DestinationStream): Logger {
  return pino({ level, base: { service: 'compliance-engine' }, timestamp: pino.stdTimeFunctions.isoTime }, destination);
}
