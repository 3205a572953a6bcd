import {
  BusyError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  PartitionElsewhereError,
  PayloadTooLargeError,
  RetryLaterError,
  UnauthorizedError,
  ValidationError,
} from '../errors.js';
import { ExpectedVersionConflictError } from './errors.js';
import { StaleControlError } from './fence.js';
import type { ExpectedVersion } from './types.js';
import { ownValue } from '../own-keys.js';

// Errors cross the writer thread's boundary as plain data: structured cloning keeps only an Error's message,
// and callers branch on the class (a version conflict is retried, a validation error becomes a 400).

export interface WireError {
  name: string;
  message: string;
  code?: string;
  field?: string;
  conflict?: { streamId: string; expected: ExpectedVersion; actual: number };
  /** A RetryLaterError's seconds (a deciding thread's BusyError). */
  retryAfterSeconds?: number;
  /** A StaleControlError's fields (a writer thread that fences: the deciding thread decides again). */
  stale?: { key: string; after: number; changedAt: number };
}

export function encodeError(error: unknown): WireError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const wire: WireError = { name: error.name, message: error.message };
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') wire.code = code;
  if (error instanceof ValidationError && error.field !== undefined) wire.field = error.field;
  if (error instanceof ExpectedVersionConflictError)
    wire.conflict = { streamId: error.streamId, expected: error.expected, actual: error.actual };
  if (error instanceof RetryLaterError) wire.retryAfterSeconds = error.retryAfterSeconds;
  if (error instanceof StaleControlError) wire.stale = { key: error.key, after: error.after, changedAt: error.changedAt };
  return wire;
}

const domainErrors: Record<string, (message: string) => Error> = {
  ConflictError: (m) => new ConflictError(m),
  NotFoundError: (m) => new NotFoundError(m),
  ForbiddenError: (m) => new ForbiddenError(m),
  PayloadTooLargeError: (m) => new PayloadTooLargeError(m),
  UnauthorizedError: (m) => new UnauthorizedError(m),
};

export function decodeError(wire: WireError): Error {
  if (wire.conflict) return new ExpectedVersionConflictError(wire.conflict.streamId, wire.conflict.expected, wire.conflict.actual);
  if (wire.stale) return new StaleControlError(wire.stale.key, wire.stale.after, wire.stale.changedAt);
  if (wire.name === 'ValidationError') return new ValidationError(wire.message, wire.field);
  if (wire.name === 'BusyError') return new BusyError(wire.message, wire.retryAfterSeconds ?? 1);
  if (wire.name === 'PartitionElsewhereError') return new PartitionElsewhereError(wire.message, wire.retryAfterSeconds ?? 1);
  const make = ownValue(domainErrors, wire.name);
  if (make) return make(wire.message);
  return Object.assign(new Error(wire.message), { name: wire.name, ...(wire.code ? { code: wire.code } : {}) });
}
