import { ConflictError } from '../errors.js';
import type { ExpectedVersion } from './types.js';

/** The stream moved on since the caller read it (optimistic concurrency). */
export class ExpectedVersionConflictError extends ConflictError {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedVersion,
    readonly actual: number,
  ) {
    super(`stream ${streamId} is at version ${actual}, expected ${String(expected)}`);
    this.name = 'ExpectedVersionConflictError';
  }
}

/** A unique or primary-key constraint refused a row, on either backend. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  // 23505 is PostgreSQL's unique_violation.
  return code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === '23505';
}
