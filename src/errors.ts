/**
 * Errors the domain raises and the HTTP layer maps to status codes. They carry no HTTP knowledge
 * beyond a `kind`, so a library user gets the same typed errors as a route does.
 */
export abstract class DomainError extends Error {
  abstract readonly kind:
    | 'validation'
    | 'not_found'
    | 'conflict'
    | 'forbidden'
    | 'too_large'
    | 'unauthorized'
    | 'quota'
    | 'busy'
    | 'elsewhere';
}

export class ValidationError extends DomainError {
  readonly kind = 'validation' as const;
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'ValidationError';
  }
}

export class NotFoundError extends DomainError {
  readonly kind = 'not_found' as const;
  constructor(message: string) {
    super(message);
    this.name = 'NotFoundError';
  }
}

export class ConflictError extends DomainError {
  readonly kind: 'conflict' = 'conflict';
  constructor(message: string) {
    super(message);
    this.name = 'ConflictError';
  }
}

export class ForbiddenError extends DomainError {
  readonly kind = 'forbidden' as const;
  constructor(message: string) {
    super(message);
    this.name = 'ForbiddenError';
  }
}

export class PayloadTooLargeError extends DomainError {
  readonly kind = 'too_large' as const;
  constructor(message: string) {
    super(message);
    this.name = 'PayloadTooLargeError';
  }
}

export class UnauthorizedError extends DomainError {
  readonly kind = 'unauthorized' as const;
  constructor(message = 'Invalid API credentials') {
    super(message);
    this.name = 'UnauthorizedError';
  }
}

/** A per-business quota is used up; `retryAfterSeconds` when waiting frees some (a pending upload URL expiring). */
export class QuotaExceededError extends DomainError {
  readonly kind = 'quota' as const;
  constructor(
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'QuotaExceededError';
  }
}

/** Refused for now; the same request may succeed after `retryAfterSeconds` (the HTTP answer's Retry-After). */
export abstract class RetryLaterError extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** Work refused because as much of it already runs as the engine allows. */
export class BusyError extends RetryLaterError {
  readonly kind = 'busy' as const;
  override readonly name = 'BusyError';
}

/**
 * A decision of a partition this node does not hold the state of (several nodes leasing partitions): its owner
 * decides it, or, while it moves between nodes, a retry finds its new owner.
 */
export class PartitionElsewhereError extends RetryLaterError {
  readonly kind = 'elsewhere' as const;
  override readonly name = 'PartitionElsewhereError';
}
