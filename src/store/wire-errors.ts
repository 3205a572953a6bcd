import { ConflictError, ForbiddenError, NotFoundError, PayloadTooLargeError, UnauthorizedError, ValidationError } from '../errors.js';
import { ExpectedVersionConflictError } from './errors.js';
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
}

export function encodeError(error: unknown): WireError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const wire: WireError = { name: error.name, message: error.message };
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') wire.code = code;
  if (error instanceof ValidationError && error.field !== undefined) wire.field = error.field;
  if (error instanceof ExpectedVersionConflictError)
    wire.conflict = { streamId: error.streamId, expected: error.expected, actual: error.actual };
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
  if (wire.name === 'ValidationError') return new ValidationError(wire.message, wire.field);
  const make = ownValue(domainErrors, wire.name);
  if (make) return make(wire.message);
  return Object.assign(new Error(wire.message), { name: wire.name, ...(wire.code ? { code: wire.code } : {}) });
}
