// How the event store groups appends into the writer's batches: what one commit (and its fsync) carries.

/**
 * Batches the writer may hold at once. With one, a burst of appends made in a single tick (a caller looping
 * over awaited decisions) is sent only when the tick ends, and the writer idles while it is made; with a few,
 * the writer commits the burst's first part while the rest is still being made, and adaptive batching stays.
 */
export const MAX_IN_FLIGHT = 3;
/** Queued appends that are sent at once instead of at the end of the tick, when the writer has room. */
export const EAGER_BATCH = 64;
/**
 * The least time between two batches sent to the writer under concurrent load (EventStore's `commitIntervalMs`).
 * A durable commit costs the writer ~350 µs of CPU whatever it holds (its fsync, WAL frames and head), so at a
 * moderate rate, where each decision would commit alone, decisions arriving within this time of the last batch wait
 * for the next one. Only appends that arrive while a batch is in flight (callers overlapping) wait: a caller awaiting
 * each append in turn never does. At saturation a commit outlasts the interval, so nothing waits there either.
 */
export const DEFAULT_COMMIT_INTERVAL_MS = 3;
/** How long one overlapping arrival counts the load as concurrent. */
export const OVERLAP_MEMORY_MS = 100;
