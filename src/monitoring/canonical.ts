// A body's identity for idempotency. Validation rebuilds every object of the body in the schema's key order
// (and every group of the instant body is a fixed-shape object), so the JSON of a validated body is canonical:
// two clients that send the same request with keys in another order send the same body. A stored body read back
// from the log has the same JSON too (parsing and printing JSON keeps key order and every number).
// The interface treats a null field as an absent one, so a retry that spells an absent field as null, or an
// absent group as null or as an object of nulls, is the same request.
import type { InstantRequest } from './request-schema.js';
import { emptyRecord } from '../own-keys.js';

export const sameBody = (stored: unknown, request: InstantRequest): boolean =>
  JSON.stringify(present(stored)) === JSON.stringify(present(request));

/** The value with null fields, and groups left with no field, taken out. */
function present(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const kept = emptyRecord<unknown>();
  let any = false;
  for (const [key, field] of Object.entries(value)) {
    const shown = present(field);
    if (shown === null || shown === undefined) continue;
    kept[key] = shown;
    any = true;
  }
  return any ? kept : undefined;
}
