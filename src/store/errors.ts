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
