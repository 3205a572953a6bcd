/** Who caused an event, and within which request and business. Every event carries it. */
export interface EventMetadata {
  businessId: string;
  actor?: string;
  requestId?: string;
  correlationId?: string;
  causationId?: string;
  /**
   * The client's key for the request that caused the append, under which its business has it done once (the
   * instant path's transactionData.reference). Read models can take it from here without parsing the data.
   */
  idempotencyKey?: string;
  /**
   * The partition of the decision that caused the append, set by every engine: read models key their rows by it;
   * where nodes lease partitions, the nodes that do not own it skip its events without parsing their data, and the
   * fence (fence.ts) keys its partition by it.
   */
  partition?: number;
}

/** An event as a domain produces it: a `type`-keyed member of that domain's union. */
export interface NewEvent<T extends string = string, D = unknown> {
  readonly type: T;
  readonly data: D;
}

/** An event as the log holds it. */
export interface StoredEvent<T extends string = string, D = unknown> {
  readonly position: number;
  readonly eventId: string;
  readonly streamId: string;
  readonly streamVersion: number;
  readonly type: T;
  readonly schemaVersion: number;
  readonly data: D;
  readonly metadata: EventMetadata;
  readonly recordedAt: string;
  readonly hash: string;
}

/** Narrows a stored event of any type to one member of a domain union. */
export type StoredOf<E extends NewEvent> = E extends NewEvent<infer T, infer D> ? StoredEvent<T, D> : never;

/**
 * What the caller believes about the stream before appending:
 * a version number (exact), `no_stream` (must not exist), `stream_exists`, or `any` (no check).
 */
export type ExpectedVersion = number | 'no_stream' | 'stream_exists' | 'any';

export interface AppendOptions {
  expectedVersion?: ExpectedVersion;
  metadata: EventMetadata;
}

export interface AppendResult {
  /** The stream's version after the append (the last event's stream version). */
  nextVersion: number;
  events: StoredEvent[];
}

export interface StreamWrite {
  streamId: string;
  events: readonly NewEvent[];
  expectedVersion?: ExpectedVersion;
}

export interface AppendObserver {
  /** `sharedCommit`: these events were committed in the transaction of the batch reported just before. */
  committed(eventCount: number, appendSeconds: readonly number[], sharedCommit: boolean): void;
}

/** Sees every event once, in log order, after it is durable: local appends and other processes' alike. */
export type Subscriber = (events: readonly StoredEvent[]) => void;

export interface ReadAllOptions {
  /** Exclusive: events after this global position. */
  after?: number;
  limit?: number;
  types?: readonly string[];
}
