// Plain objects keyed by outside input (rule ids, list names, names in a body, CSV headers) are a prototype
// pollution hazard: `obj['__proto__'] = …` rewrites the object's prototype, `(obj[k] ??= {})[x] = …` with
// k = '__proto__' writes into Object.prototype itself, and `obj['constructor']` finds a function. Maps avoid it;
// where a record must stay a record (JSON answers, event data), these build and read it without a prototype.

/** A record without a prototype: a key is only ever an own key, and assigning '__proto__' stores a value. */
export function emptyRecord<V>(): Record<string, V> {
  return Object.create(null) as Record<string, V>;
}

/** A prototype-less record of the entries, in their order (a Map's, say). */
export function recordOf<V>(entries: Iterable<readonly [string, V]>): Record<string, V> {
  const out = emptyRecord<V>();
  for (const [k, v] of entries) out[k] = v;
  return out;
}

/** A prototype-less copy of a constant table, for tables looked up by outside input. */
export function lookupTable<V>(table: Readonly<Record<string, V>>): Readonly<Record<string, V>> {
  return recordOf(Object.entries(table));
}

/** The table's own value for the key: never one of Object.prototype's (`constructor`, `toString`, `__proto__`). */
export function ownValue<V>(table: Readonly<Record<string, V>>, key: string): V | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

/** Names refused wherever a name becomes a key: rule ids, list names, velocity keys, field names. */
export const RESERVED_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * The record's own value for `key`, created by `make` when absent: `(record[key] ??= {})` would, for the key
 * '__proto__', hand back Object.prototype itself for the caller to write into.
 */
export function ownSlot<V>(record: Record<string, V>, key: string, make: () => V): V {
  if (Object.hasOwn(record, key)) return record[key]!;
  const value = make();
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
  return value;
}
