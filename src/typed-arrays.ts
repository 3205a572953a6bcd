// Growing a typed array: its contents copied to the start of a larger one. Shared by the velocity windows' pools
// and the matcher's working arrays, which both keep numbers out of the garbage-collected heap.

/** `to` holding `from` at its start. */
export function widened<T extends Float64Array | Int32Array>(from: T, to: T): T {
  to.set(from);
  return to;
}
